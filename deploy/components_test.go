package deploy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exampleComponents are the example's optional components, commented out
// in its kustomization.yaml as a user finds them.
const exampleComponents = "# components:\n#   - ../components/grafana-dashboards\n#   - ../components/alert-links\n"

// withComponents copies deploy/kubernetes to a temporary directory with
// the example's components uncommented and alert-links.yaml's values set
// to grafana and runbooks: what a user who follows the comments builds.
func withComponents(t *testing.T, grafana, runbooks string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kubernetes")
	if err := os.CopyFS(dir, os.DirFS("kubernetes")); err != nil {
		t.Fatal(err)
	}
	edit := func(file, old, repl string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s lacks %q", file, old)
		}
		if err := os.WriteFile(filepath.Join(dir, file), bytes.Replace(b, []byte(old), []byte(repl), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("example/kustomization.yaml", exampleComponents, strings.ReplaceAll(exampleComponents, "# ", ""))
	edit("components/alert-links/alert-links.yaml", "grafana_url: https://grafana.example.com\n", "grafana_url: "+grafana+"\n")
	edit("components/alert-links/alert-links.yaml", "runbook_base: https://github.com/llm-prober/llm-prober/blob/main/docs\n", "runbook_base: "+runbooks+"\n")
	return filepath.Join(dir, "example")
}

// With the components, the example also creates one ConfigMap per
// dashboard for kube-prometheus-stack's Grafana sidecar, and its alerts
// link to the Grafana and runbook set in alert-links.yaml, not to those
// the rules were generated with.
func TestExampleComponents(t *testing.T) {
	const grafana, runbooks = "https://grafana.prod.internal", "https://wiki.internal/llm-prober"
	o := build(t, withComponents(t, grafana, runbooks))

	dashboards, err := filepath.Glob("../dashboards/*.json")
	if err != nil || len(dashboards) != 3 {
		t.Fatalf("dashboards/*.json: %v %v", dashboards, err)
	}
	got := map[string]string{}
	for _, cm := range o.configMaps {
		if cm.Name == "llm-prober-alert-links" {
			t.Error("alert-links.yaml's ConfigMap is applied to the cluster, not only read")
		}
		if cm.Labels["grafana_dashboard"] != "1" {
			continue
		}
		if cm.Namespace != "llm-prober" {
			t.Errorf("dashboard ConfigMap %s in namespace %q", cm.Name, cm.Namespace)
		}
		for k, v := range cm.Data {
			got[k] = v
		}
	}
	for _, f := range dashboards {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got[filepath.Base(f)] != string(want) || !json.Valid(want) {
			t.Errorf("no labelled ConfigMap holds %s as it is", f)
		}
	}

	if len(o.rules) != 1 {
		t.Fatalf("%d PrometheusRules", len(o.rules))
	}
	var links int
	for _, g := range o.rules[0].Spec.Groups {
		for _, r := range g.Rules {
			if u, ok := r.Annotations["dashboard_url"]; ok && !strings.HasPrefix(u, grafana+"/d/llm-prober-") {
				t.Errorf("%s: dashboard_url %s", r.Alert, u)
			}
			if u, ok := r.Annotations["runbook_url"]; ok {
				links++
				if !strings.HasPrefix(u, runbooks+"/runbook.md#") {
					t.Errorf("%s: runbook_url %s", r.Alert, u)
				}
			}
		}
	}
	if links < 10 {
		t.Errorf("only %d alerts with a runbook_url", links)
	}
}

// The component's dashboards are copies (it cannot read files outside its
// directory): they must not drift from dashboards/*.json.
func TestDashboardComponentCopies(t *testing.T) {
	dashboards, err := filepath.Glob("../dashboards/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range dashboards {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("kubernetes/components/grafana-dashboards", filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("kubernetes/components/grafana-dashboards/%s differs from %s (%v): run `cd dashboards && go generate ./...`", filepath.Base(f), f, err)
		}
	}
}
