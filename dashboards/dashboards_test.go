package dashboards

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
)

// TestGeneratedFilesUpToDate fails when the committed JSON differs from
// what the Go code generates. Fix: cd dashboards && go generate ./...
func TestGeneratedFilesUpToDate(t *testing.T) {
	files, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%s: %v (run: cd dashboards && go generate ./...)", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale; run: cd dashboards && go generate ./...", name)
		}
	}
	committed, _ := filepath.Glob("*.json")
	for _, c := range committed {
		if _, ok := files[c]; !ok {
			t.Errorf("%s is committed but not generated; delete it", c)
		}
	}
}

// TestStrictParse parses the committed JSON with the SDK's strict decoder
// (unknown fields are errors) and validates it.
func TestStrictParse(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	for _, name := range jsonFiles(t) {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var d grafanaDashboard
		// The strict unmarshal returns a typed-nil error list on success.
		if err := d.UnmarshalJSONStrict(raw); err != nil && !isNilErrs(err) {
			t.Errorf("%s: strict parse: %v", name, err)
			continue
		}
		if err := d.Validate(); err != nil && !isNilErrs(err) {
			t.Errorf("%s: validate: %v", name, err)
		}
	}
}

func isNilErrs(err error) bool {
	var s string
	func() {
		defer func() {
			if recover() != nil {
				s = ""
			}
		}()
		s = err.Error()
	}()
	return s == ""
}

func jsonFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboard JSON files: %v", err)
	}
	return files
}

// Loose JSON shapes for the lint checks.
type jsonDash struct {
	UID        string `json:"uid"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []jsonPanel `json:"panels"`
}

type jsonPanel struct {
	ID          int    `json:"id"`
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Datasource  *struct {
		UID string `json:"uid"`
	} `json:"datasource"`
	FieldConfig struct {
		Defaults struct {
			Unit    string `json:"unit"`
			NoValue string `json:"noValue"`
		} `json:"defaults"`
		Overrides []struct {
			Matcher struct {
				ID      string `json:"id"`
				Options string `json:"options"`
			} `json:"matcher"`
			Properties []struct {
				ID    string          `json:"id"`
				Value json.RawMessage `json:"value"`
			} `json:"properties"`
		} `json:"overrides"`
	} `json:"fieldConfig"`
	Targets []struct {
		Expr       string `json:"expr"`
		Exemplar   bool   `json:"exemplar"`
		Instant    bool   `json:"instant"`
		Datasource struct {
			UID string `json:"uid"`
		} `json:"datasource"`
	} `json:"targets"`
}

var (
	rangeRe  = regexp.MustCompile(`\[([^\]]+)\]`)
	metricRe = regexp.MustCompile(`[a-z0-9_:]*llm_prober_[a-z0-9_:]+`)
	// Windows a query may use besides $__rate_interval: the dashboard range,
	// the burn-rate alert windows, the KV forecast and LLMProberDown's day of
	// prober history (the SLO period is read from recording rules, never
	// computed in a panel).
	allowedWindows = []string{"$__rate_interval", "$__range", "5m", "1h", "6h", "30m", "1d"}
)

// TestLint applies the main rules of Grafana's dashboard linter plus
// checks against docs/metrics-contract.md.
func TestLint(t *testing.T) {
	contract := contractMetrics(t)
	recorded := recordingRuleNames(t)
	for _, name := range jsonFiles(t) {
		raw, _ := os.ReadFile(name)
		var d jsonDash
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		var vars []string
		for _, v := range d.Templating.List {
			vars = append(vars, v.Name)
		}
		for _, want := range []string{"datasource", "job", "instance", "target", "model"} {
			if !slices.Contains(vars, want) {
				t.Errorf("%s: no %q variable", name, want)
			}
		}
		rateInterval := false
		ids := map[int]bool{}
		for _, p := range d.Panels {
			where := name + ": panel " + p.Title
			if p.ID == 0 || ids[p.ID] {
				t.Errorf("%s: missing or duplicate id %d", where, p.ID)
			}
			ids[p.ID] = true
			if p.Type == "row" {
				continue
			}
			lintPanel(t, where, p)
			if strings.TrimSpace(p.Description) == "" {
				t.Errorf("%s: no description", where)
			}
			if p.FieldConfig.Defaults.Unit == "" {
				t.Errorf("%s: no unit", where)
			}
			if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
				t.Errorf("%s: panel datasource is not ${datasource}", where)
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: no queries", where)
			}
			latency := strings.Contains(p.Title, "latency") || strings.Contains(p.Title, "token") || strings.Contains(p.Title, "TTFT") || strings.Contains(p.Title, "headers")
			for _, tg := range p.Targets {
				if tg.Datasource.UID != "${datasource}" {
					t.Errorf("%s: query datasource is not ${datasource}", where)
				}
				if strings.Contains(tg.Expr, "$__rate_interval") {
					rateInterval = true
				}
				// DCGM series come from another job; the GPU panels join them
				// to llm_prober_target_info, except the bare "any GPU?" count.
				if !strings.Contains(tg.Expr, `job=~"$job"`) && tg.Expr != dcgmPresence {
					t.Errorf("%s: query does not filter on $job: %s", where, tg.Expr)
				}
				// Every selector that picks a job picks its cluster too, so
				// that an alert's link (var-cluster) narrows every panel.
				if strings.Count(tg.Expr, `job=~"$job"`) != strings.Count(tg.Expr, `cluster=~"$cluster", job=~"$job"`) {
					t.Errorf("%s: a selector filters on $job but not on $cluster: %s", where, tg.Expr)
				}
				for _, m := range rangeRe.FindAllStringSubmatch(tg.Expr, -1) {
					if !slices.Contains(allowedWindows, m[1]) {
						t.Errorf("%s: range [%s] is not one of %v", where, m[1], allowedWindows)
					}
				}
				if strings.Contains(tg.Expr, "rate(") && strings.Contains(tg.Expr, "_bucket") {
					if !strings.Contains(tg.Expr, "sum by (le") {
						t.Errorf("%s: histogram_quantile without sum by (le, ...): %s", where, tg.Expr)
					}
					if latency && strings.Contains(tg.Expr, "histogram_quantile") && !strings.Contains(tg.Expr, "llm_prober_server_") && !tg.Exemplar {
						t.Errorf("%s: probe latency query without exemplars", where)
					}
				}
				if regexp.MustCompile(`le=~?"`).MatchString(tg.Expr) {
					t.Errorf("%s: query matches a specific le value (Prometheus 3 normalises le): %s", where, tg.Expr)
				}
				for _, m := range metricRe.FindAllString(tg.Expr, -1) {
					if strings.Contains(m, ":") {
						if !recorded[m] {
							t.Errorf("%s: recording rule %s is not in alerts/llm-prober-rules.yml", where, m)
						}
						continue
					}
					if !contract[baseMetric(m, contract)] {
						t.Errorf("%s: metric %s is not in docs/metrics-contract.md", where, m)
					}
				}
			}
		}
		if !rateInterval {
			t.Errorf("%s: no query uses $__rate_interval", name)
		}
	}
}

func baseMetric(m string, contract map[string]bool) string {
	if contract[m] {
		return m
	}
	for _, suf := range []string{"_bucket", "_sum", "_count"} {
		if strings.HasSuffix(m, suf) {
			return strings.TrimSuffix(m, suf)
		}
	}
	return m
}

// contractMetrics reads the metric names from docs/metrics-contract.md.
func contractMetrics(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "docs", "metrics-contract.md"))
	if err != nil {
		t.Skipf("metrics contract not found: %v", err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "| llm_prober_") {
			continue
		}
		name := strings.TrimSpace(strings.Split(line, "|")[1])
		out[name] = true
	}
	if len(out) < 20 {
		t.Fatalf("only %d metrics parsed from the contract", len(out))
	}
	return out
}

// recordingRuleNames reads the record: names from alerts/llm-prober-rules.yml.
func recordingRuleNames(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "alerts", "llm-prober-rules.yml"))
	if err != nil {
		t.Fatalf("recording rules: %v", err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*- record: (\S+)$`).FindAllStringSubmatch(string(raw), -1) {
		out[m[1]] = true
	}
	return out
}
