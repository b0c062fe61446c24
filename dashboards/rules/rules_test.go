package rules

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCommittedUpToDate fails when alerts/*.yml differ from what the code
// generates. Fix: cd dashboards && go generate ./...
func TestCommittedUpToDate(t *testing.T) {
	files, err := Render(Default())
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", "alerts", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("alerts/%s is stale; run: cd dashboards && go generate ./...", name)
		}
	}
}

func allRules(t *testing.T, c Config) []Rule {
	t.Helper()
	files, err := Files(c)
	if err != nil {
		t.Fatal(err)
	}
	var out []Rule
	for _, f := range files {
		for _, g := range f.Groups {
			out = append(out, g.Rules...)
		}
	}
	return out
}

var (
	rawMetricRe = regexp.MustCompile(`(^|[^:a-z_])(llm_prober_[a-z0-9_]+|up)\b(\{[^}]*\})?`)
	clauseRe    = regexp.MustCompile(`\b(by|on) \(([^)]*)\)`)
)

// TestSelectorAndCluster generates a variant and checks that every raw
// series carries the selector and every aggregation keeps the cluster label.
func TestSelectorAndCluster(t *testing.T) {
	c := Default()
	c.Selector = `job="llm-prober"`
	c.ClusterLabel = "k8s_cluster"
	for _, r := range allRules(t, c) {
		name := r.Record + r.Alert
		for _, m := range rawMetricRe.FindAllStringSubmatch(r.Expr, -1) {
			if !strings.HasPrefix(m[3], `{job="llm-prober"`) {
				t.Errorf("%s: %s%s lacks the selector", name, m[2], m[3])
			}
		}
		for _, m := range clauseRe.FindAllStringSubmatch(r.Expr, -1) {
			if strings.Contains(m[2], "job") && !strings.HasPrefix(m[2], "k8s_cluster, ") {
				t.Errorf("%s: %s (%s) does not keep k8s_cluster", name, m[1], m[2])
			}
			if strings.Contains(m[2], "cluster,") && !strings.Contains(m[2], "k8s_cluster") {
				t.Errorf("%s: %s (%s) keeps the default cluster label", name, m[1], m[2])
			}
		}
	}
	// Every link that selects a prober selects its cluster and location
	// too, from the alert's labels where it has them (issue 23).
	for _, r := range allRules(t, c) {
		u := r.Annotations["dashboard_url"]
		if !strings.Contains(u, "var-job=") {
			continue
		}
		for _, want := range []string{"{{ with $labels.k8s_cluster }}&var-cluster={{ . | urlquery }}{{ end }}",
			"{{ with $labels.location }}&var-location={{ . | urlquery }}{{ end }}"} {
			if !strings.Contains(u, want) {
				t.Errorf("%s: dashboard_url %q lacks %s", r.Alert, u, want)
			}
		}
	}
	// Without a selector no empty braces or dangling commas are left.
	for _, r := range allRules(t, Default()) {
		if strings.Contains(r.Expr, "{}") || strings.Contains(r.Expr, "{,") || strings.Contains(r.Expr, "SEL") {
			t.Errorf("%s%s: bad selector expansion: %s", r.Record, r.Alert, r.Expr)
		}
	}
}

// TestBurnFactors: the factors follow from the period, so a 28-day
// dashboard and the alerts agree; 30 days gives the SRE workbook's.
func TestBurnFactors(t *testing.T) {
	for days, want := range map[int][]float64{28: {13.44, 5.6, 2.8, 0.9333333}, 30: {14.4, 6, 3, 1}} {
		for i, w := range BurnWindows {
			if got := w.Factor(days); math.Abs(got-want[i]) > 1e-6 {
				t.Errorf("%dd, %s/%s: factor %g, want %g", days, w.Long, w.Short, got, want[i])
			}
		}
	}
	c := Default()
	for _, r := range allRules(t, c) {
		if r.Alert == "LLMProberGoodputBudgetBurn" && r.Labels["long"] == "1h" && !strings.Contains(r.Expr, "(13.44 * llm_prober:slo_error_budget:ratio)") {
			t.Errorf("1h goodput burn does not use 13.44 for 28d:\n%s", r.Expr)
		}
	}
}

// TestAlertMetadata: severities follow the policy and every alert links
// its runbook section and a dashboard.
func TestAlertMetadata(t *testing.T) {
	c := Default()
	uids := regexp.MustCompile(`^` + regexp.QuoteMeta(c.GrafanaURL) + `/d/(` + SLODashboardUID + `|` + CapacityDashboardUID + `|` + TargetDashboardUID + `)\b`)
	for _, r := range allRules(t, c) {
		if r.Alert == "" {
			continue
		}
		switch r.Labels["severity"] {
		case "critical", "warning", "info":
		default:
			t.Errorf("%s: severity %q", r.Alert, r.Labels["severity"])
		}
		if !strings.HasSuffix(r.Annotations["runbook_url"], "#"+strings.ToLower(r.Alert)) {
			t.Errorf("%s: runbook_url %q", r.Alert, r.Annotations["runbook_url"])
		}
		if !uids.MatchString(r.Annotations["dashboard_url"]) {
			t.Errorf("%s: dashboard_url %q opens no llm-prober dashboard", r.Alert, r.Annotations["dashboard_url"])
		}
		proberLevel := strings.Contains(r.Expr, "up{") || strings.Contains(r.Expr, "absent(") || strings.Contains(r.Expr, "reload")
		if proberLevel && strings.Contains(r.Annotations["dashboard_url"], "var-target") {
			t.Errorf("%s: dashboard_url selects a target the alert does not carry", r.Alert)
		}
	}
}

// TestConfigValidate rejects options that would break the rules.
func TestConfigValidate(t *testing.T) {
	for _, mod := range []func(*Config){
		func(c *Config) { c.PeriodDays = 3 },
		func(c *Config) { c.Objective = 1 },
		func(c *Config) { c.MinProbes = 0 },
		func(c *Config) { c.Selector = `{job="x"}` },
		func(c *Config) { c.ClusterLabel = "k8s-cluster" },
	} {
		c := Default()
		mod(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestVariantPromtool runs a generated variant (selector and cluster
// label) through promtool's checker and unit tests: a decoy job never
// alerts, and alerts carry the cluster. Needs PROMTOOL (scripts/test.sh
// sets it).
func TestVariantPromtool(t *testing.T) {
	promtool := os.Getenv("PROMTOOL")
	if promtool == "" {
		t.Skip("set PROMTOOL to a promtool binary (scripts/test.sh does)")
	}
	c := Default()
	c.Selector = `job="llm-prober"`
	c.ClusterLabel = "k8s_cluster"
	c.GrafanaURL = "https://grafana.test"
	dir := t.TempDir()
	if _, err := Write(c, dir); err != nil {
		t.Fatal(err)
	}
	test, err := os.ReadFile(filepath.Join("testdata", "variant_test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "variant_test.yml"), test, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "rules", "llm-prober-rules.yml", "llm-prober-alerts.yml"},
		{"test", "rules", "variant_test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
