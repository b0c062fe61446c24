package dashboards

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestEveryPanelSaysWhyEmpty: no panel shows Grafana's bare "No data"
// (issue 33: 48 of 71 panels of the dashboard LLMProberDown opens said
// nothing after a kill), and the panels an all-timeout target empties
// say why in their own words.
func TestEveryPanelSaysWhyEmpty(t *testing.T) {
	specific := map[string]map[string]bool{
		"llm-prober-target.json": {"Mean probe phases": true, "Time to headers": true, "End-to-end latency by module": true,
			"TTFT heatmap: probes": true, "Inter-token latency heatmap: probes": true, "E2E latency heatmap: probes": true,
			"Failures by reason": true},
		"llm-prober-slo.json":      {"Failures by reason": true},
		"llm-prober-capacity.json": {"Knee origin": true, "Replicas": true},
	}
	for _, name := range jsonFiles(t) {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var d jsonDash
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, p := range d.Panels {
			if p.Type == "row" {
				continue
			}
			nv := p.FieldConfig.Defaults.NoValue
			switch {
			case nv == "":
				t.Errorf("%s: panel %q shows a bare \"No data\"", name, p.Title)
			case specific[name][p.Title] && nv == noDataDefault:
				t.Errorf("%s: panel %q has only the generic text", name, p.Title)
			}
			seen[p.Title] = true
		}
		for title := range specific[name] {
			if !seen[title] {
				t.Errorf("%s: no panel %q", name, title)
			}
		}
	}
}

// TestDeadProberPanels evaluates with promtool, over a prober killed at
// 20m, the panels an on-call opens from LLMProberDown: Prober reads its up
// (0), and Time since last probe keeps its probes, growing, where it
// vanished 10 s after the kill (issue 33). A target removed from a live
// prober's config does not linger. Needs PROMTOOL (scripts/test.sh sets it).
func TestDeadProberPanels(t *testing.T) {
	promtool := promtoolPath(t)
	vars := strings.NewReplacer("$__rate_interval", "2m", "$__range", "10m", "$cluster", ".*",
		"$job", ".+", "$instance", ".+", "$target", ".+", "$model", ".+", "$location", ".*")
	since := vars.Replace(panelExpr(t, "llm-prober-target.json", "Time since last probe", "A"))
	up := []promSample{{Labels: `up{job="llm-prober", instance="dead"}`, Value: 0}, {Labels: `up{job="llm-prober", instance="live"}`, Value: 1}}
	probe := `llm_prober_last_probe_timestamp_seconds{job="llm-prober", instance="%s", target="%s", model="m", module="chat"}`
	f := func(instance, target string) string {
		return strings.Replace(strings.Replace(probe, "%s", instance, 1), "%s", target, 1)
	}
	series := []map[string]string{
		// dead: scraped until 20m, then the scrapes fail (up 0, its series stale).
		{"series": `up{job="llm-prober", instance="dead"}`, "values": "1x20 0x20"},
		{"series": `llm_prober_build_info{job="llm-prober", instance="dead", version="1"}`, "values": "1x20 stale"},
		{"series": f("dead", "a"), "values": "0+60x20 stale"},
		// live: keeps probing b; c leaves its config at 20m.
		{"series": `up{job="llm-prober", instance="live"}`, "values": "1x40"},
		{"series": `llm_prober_build_info{job="llm-prober", instance="live", version="1"}`, "values": "1x40"},
		{"series": f("live", "b"), "values": "0+60x40"},
		{"series": f("live", "c"), "values": "0+60x20 stale"},
	}
	var tests []exprTest
	for _, title := range []string{"llm-prober-target.json", "llm-prober-slo.json"} {
		tests = append(tests, exprTest{Expr: vars.Replace(panelExpr(t, title, "Prober", "A")), EvalTime: "30m", ExpSamples: up})
	}
	// The last probe of a finished at 20m (1,200 s): 600 s ago at 30m,
	// 1,200 s at 40m; b's is this minute's.
	for _, at := range []struct {
		eval string
		age  float64
	}{{"30m", 600}, {"40m", 1200}} {
		tests = append(tests, exprTest{Expr: since, EvalTime: at.eval, ExpSamples: []promSample{
			{Labels: `{target="a", model="m", module="chat"}`, Value: at.age},
			{Labels: `{target="b", model="m", module="chat"}`, Value: 0},
		}})
	}
	runExprTests(t, promtool, "dead_prober_test.yml", series, tests)
}
