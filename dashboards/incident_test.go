package dashboards

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// panelExpr returns the query refID of the panel titled title in the
// dashboard file name.
func panelExpr(t *testing.T, name, title, refID string) string {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Panels {
		if p.Title != title {
			continue
		}
		for _, tg := range p.Targets {
			if tg.RefID == refID {
				return tg.Expr
			}
		}
	}
	t.Fatalf("%s: no panel %q with query %s", name, title, refID)
	return ""
}

// TestIncidentPanels evaluates with promtool the panels an incident
// proved wrong (issue 23), over the series of that incident: "Time since
// last success" must keep a module that never succeeded since its prober
// started (it dropped it: the worst target had no tile), and the KV
// forecast must not extrapolate a series younger than its 30m window (it
// swung from -121 % to +1,531 %). Needs PROMTOOL (scripts/test.sh sets it).
func TestIncidentPanels(t *testing.T) {
	promtool := promtoolPath(t)
	vars := strings.NewReplacer("$__rate_interval", "2m", "$__range", "10m", "$cluster", ".*",
		"$job", ".+", "$instance", ".+", "$target", ".+", "$model", ".+", "$location", ".*")
	sinceSuccess := vars.Replace(panelExpr(t, "llm-prober-target.json", "Time since last success", "A"))
	forecast := vars.Replace(panelExpr(t, "llm-prober-capacity.json", "KV cache usage forecast (1h ahead)", "A"))
	l := `job="llm-prober", instance="p", target="%s", model="m", module="chat"`
	series := []map[string]string{
		// ok succeeded last at 60s; bad never did, though probed every minute.
		{"series": "llm_prober_last_probe_timestamp_seconds{" + strings.Replace(l, "%s", "ok", 1) + "}", "values": "0+60x40"},
		{"series": "llm_prober_last_success_timestamp_seconds{" + strings.Replace(l, "%s", "ok", 1) + "}", "values": "60x40"},
		{"series": "llm_prober_last_probe_timestamp_seconds{" + strings.Replace(l, "%s", "bad", 1) + "}", "values": "0+60x40"},
		// A KV cache climbing steeply since it appeared at 20m (a start-up ramp).
		{"series": `llm_prober_server_kv_cache_usage_ratio{job="llm-prober", instance="p", target="young", model="m", engine="0"}`, "values": "_x20 0.1+0.04x20"},
	}
	tests := []exprTest{
		{Expr: sinceSuccess, EvalTime: "10m", ExpSamples: []promSample{
			{Labels: `{target="ok", model="m", module="chat"}`, Value: 540},
			{Labels: `{target="bad", model="m", module="chat"}`, Value: -1},
		}},
		{Expr: forecast, EvalTime: "40m", ExpSamples: []promSample{}},
	}
	runExprTests(t, promtool, "incident_test.yml", series, tests)
}
