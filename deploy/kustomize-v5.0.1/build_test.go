// Package kustomize builds the Kubernetes example with the kustomize of
// kubectl 1.27, the oldest kubectl the README names.
package kustomize

import (
	"bytes"
	"os"
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
