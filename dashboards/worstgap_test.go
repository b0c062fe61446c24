package dashboards

import (
	"strings"
	"testing"
)

// The worst-gap panel (issue 34) shows, per target, the distribution of
// each probe's longest gap between content chunks and the max_itl SLO:
// evaluated with promtool over two targets, one whose probes stall 1 in
// 10 times for up to 2 s, one that never does, its p99 tells them apart
// and its SLO line is the configured threshold. Needs PROMTOOL.
func TestWorstGapPanel(t *testing.T) {
	promtool := promtoolPath(t)
	const title = "Worst gap between tokens (max_itl), per target"
	vars := strings.NewReplacer("$__rate_interval", "2m", "$cluster", ".*",
		"$job", ".+", "$instance", ".+", "$target", ".+", "$model", ".+", "$location", ".*")
	p99 := vars.Replace(panelExpr(t, "llm-prober-slo.json", title, "C"))
	slo := vars.Replace(panelExpr(t, "llm-prober-slo.json", title, "D"))
	if !strings.Contains(p99, "histogram_quantile(0.99") || !strings.Contains(p99, "llm_prober_max_inter_token_latency_seconds") {
		t.Fatalf("query C is not the worst gap's p99: %s", p99)
	}
	h := func(target, le, values string) map[string]string {
		return map[string]string{"series": `llm_prober_max_inter_token_latency_seconds_bucket{job="llm-prober", instance="p", target="` +
			target + `", model="m", module="chat", le="` + le + `"}`, "values": values}
	}
	series := []map[string]string{
		// 100 probes a minute each; stalls: 90 within 25 ms, 10 up to 2 s.
		h("stalls", "0.025", "0+90x20"), h("stalls", "0.05", "0+90x20"), h("stalls", "2", "0+100x20"), h("stalls", "+Inf", "0+100x20"),
		h("steady", "0.025", "0+100x20"), h("steady", "0.05", "0+100x20"), h("steady", "2", "0+100x20"), h("steady", "+Inf", "0+100x20"),
		{"series": `llm_prober_slo_seconds{job="llm-prober", instance="p", target="stalls", model="m", module="chat", slo="max_itl"}`, "values": "0.5x20"},
		{"series": `llm_prober_slo_seconds{job="llm-prober", instance="p", target="stalls", model="m", module="chat", slo="tpot"}`, "values": "0.05x20"},
	}
	tests := []exprTest{
		// Rank 99 of 100: the 9th of the 10 in (0.05, 2], 1.805 s; below
		// 0.025 for the steady target, 0.02475 s interpolated from 0 as
		// Prometheus does (to the ms, as a panel shows it).
		{Expr: "round(" + p99 + ", 0.001)", EvalTime: "10m", ExpSamples: []promSample{
			{Labels: `{target="stalls", model="m"}`, Value: 1.805},
			{Labels: `{target="steady", model="m"}`, Value: 0.025},
		}},
		{Expr: slo, EvalTime: "10m", ExpSamples: []promSample{{Labels: `{target="stalls", model="m"}`, Value: 0.5}}},
	}
	runExprTests(t, promtool, "worstgap_test.yml", series, tests)
}
