package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/llm-prober/llm-prober/internal/testutil/e2ekit"
)

// promtool runs $PROMTOOL (scripts/test.sh builds it), else promtool from
// tools/go.mod, in the repository root.
func promtool(t *testing.T, args ...string) string {
	t.Helper()
	root := repoRoot(t)
	cmd := exec.Command("go", append([]string{"tool", "-modfile=tools/go.mod", "promtool"}, args...)...)
	if p := os.Getenv("PROMTOOL"); p != "" {
		cmd = exec.Command(p, args...)
	}
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("promtool %v: %v\n%s", args, err, out.String())
	}
	return out.String()
}

// TestRulesPromtool runs `promtool check rules` and `promtool test rules`.
func TestRulesPromtool(t *testing.T) {
	requireE2E(t)
	promtool(t, "check", "rules", "alerts/llm-prober-rules.yml", "alerts/llm-prober-alerts.yml")
	tests, err := filepath.Glob(filepath.Join(repoRoot(t), "alerts", "tests", "*.yml"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no rule tests: %v", err)
	}
	args := []string{"test", "rules"}
	for _, f := range tests {
		rel, _ := filepath.Rel(repoRoot(t), f)
		args = append(args, rel)
	}
	promtool(t, args...)
}

// TestEveryAlertTested checks that every alert has a unit test in which it
// fires and one in which it is expected not to fire.
func TestEveryAlertTested(t *testing.T) {
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, "alerts", "llm-prober-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := e2ekit.ParseRules(raw)
	if err != nil {
		t.Fatal(err)
	}
	firing, quiet := map[string]bool{}, map[string]bool{}
	tests, _ := filepath.Glob(filepath.Join(root, "alerts", "tests", "*.yml"))
	for _, f := range tests {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tf struct {
			Tests []struct {
				AlertRuleTest []struct {
					Alertname string `yaml:"alertname"`
					ExpAlerts []any  `yaml:"exp_alerts"`
				} `yaml:"alert_rule_test"`
			} `yaml:"tests"`
		}
		if err := yaml.Unmarshal(raw, &tf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range tf.Tests {
			for _, a := range g.AlertRuleTest {
				if len(a.ExpAlerts) > 0 {
					firing[a.Alertname] = true
				} else {
					quiet[a.Alertname] = true
				}
			}
		}
	}
	runbook, err := os.ReadFile(filepath.Join(root, "docs", "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if !firing[r.Alert] {
			t.Errorf("%s: no unit test where it fires", r.Alert)
		}
		if !quiet[r.Alert] {
			t.Errorf("%s: no unit test where it stays quiet", r.Alert)
		}
		switch r.Labels["severity"] {
		case "critical", "warning", "info":
		default:
			t.Errorf("%s: severity %q", r.Alert, r.Labels["severity"])
		}
		for _, a := range []string{"summary", "description", "runbook_url"} {
			if r.Annotations[a] == "" {
				t.Errorf("%s: no %s annotation", r.Alert, a)
			}
		}
		if want := "docs/runbook.md#" + strings.ToLower(r.Alert); !strings.HasSuffix(r.Annotations["runbook_url"], want) {
			t.Errorf("%s: runbook_url %q does not end with %s", r.Alert, r.Annotations["runbook_url"], want)
		}
		if !bytes.Contains(runbook, []byte("\n## "+r.Alert+"\n")) {
			t.Errorf("%s: no '## %s' section in docs/runbook.md", r.Alert, r.Alert)
		}
	}
}
