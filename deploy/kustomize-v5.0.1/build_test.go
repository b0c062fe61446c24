// Package kustomize builds the Kubernetes example with the kustomize of
// kubectl 1.27, the oldest kubectl docs/deployment.md names.
package kustomize

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// `kubectl apply -k deploy/kubernetes/example` works on kubectl 1.27 and
// creates what a current kustomize builds (the deploy module's
// TestExampleBuild keeps that in ../testdata/example-build.yaml).
// kustomize v5.0.1 rejects, for one, a patch file of several documents.
func TestExampleBuildsWithKubectl127(t *testing.T) {
	rm, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), "../kubernetes/example")
	if err != nil {
		t.Fatalf("kustomize v5.0.1: %v", err)
	}
	got, err := rm.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../testdata/example-build.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("kustomize v5.0.1 builds the example differently from the current kustomize (../testdata/example-build.yaml)")
	}
}

// The example's optional components, uncommented as its kustomization.yaml
// says, build too: three dashboard ConfigMaps, the alert-links ConfigMap
// only read (the deploy module's TestExampleComponents checks the rest).
func TestExampleComponentsBuildWithKubectl127(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kubernetes")
	if err := os.CopyFS(dir, os.DirFS("../kubernetes")); err != nil {
		t.Fatal(err)
	}
	k := filepath.Join(dir, "example/kustomization.yaml")
	b, err := os.ReadFile(k)
	if err != nil {
		t.Fatal(err)
	}
	const commented = "# components:\n#   - ../components/grafana-dashboards\n#   - ../components/alert-links\n"
	if !bytes.Contains(b, []byte(commented)) {
		t.Fatalf("the example's kustomization.yaml lacks %q", commented)
	}
	b = bytes.Replace(b, []byte(commented), []byte(strings.ReplaceAll(commented, "# ", "")), 1)
	if err := os.WriteFile(k, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rm, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(dir, "example"))
	if err != nil {
		t.Fatalf("kustomize v5.0.1: %v", err)
	}
	var dashboards int
	for _, r := range rm.Resources() {
		if r.GetName() == "llm-prober-alert-links" {
			t.Error("alert-links.yaml's ConfigMap is in the output")
		}
		if r.GetKind() == "ConfigMap" && r.GetLabels()["grafana_dashboard"] == "1" {
			dashboards++
		}
	}
	if dashboards != 3 || len(rm.Resources()) != 14 {
		t.Errorf("%d dashboard ConfigMaps of %d objects, want 3 of 14", dashboards, len(rm.Resources()))
	}
}
