package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// noPromptTokens says why the prompt-length panels are empty.
const noPromptTokens = "No module of the selected targets sets prompt_tokens (or none succeeded in the time range)"

// meanOf is the mean of a histogram over $__rate_interval by target, model.
func meanOf(metric string) string {
	return ratioOfRates(metric+"_sum", metric+"_count")
}

// neverMapping shows the -1 of "Time since last success" (a module that
// never succeeded since its prober started) as text, in red.
var neverMapping = []dashboard.ValueMapping{{ValueMap: &dashboard.ValueMap{
	Type: dashboard.MappingTypeValueToText,
	Options: map[string]dashboard.ValueMappingResult{
		"-1": {Text: ptr("never since start"), Color: ptr("red"), Index: ptr(int32(0))},
	},
}}}

func targetDrillDown() *dashboardBuilder {
	p := &panelIDs{}
	okMapping := []dashboard.ValueMapping{{ValueMap: &dashboard.ValueMap{
		Type: dashboard.MappingTypeValueToText,
		Options: map[string]dashboard.ValueMappingResult{
			"0": {Text: ptr("FAIL"), Color: ptr("red"), Index: ptr(int32(0))},
			"1": {Text: ptr("OK"), Color: ptr("green"), Index: ptr(int32(1))},
		},
	}}}
	b := base("llm-prober-target", "llm-prober / Target drill-down",
		"One target in detail: probe phases, client-side vs server-side latency and their heatmaps, recent failures and scrape health. Latency panels show exemplars (labels probe_id and trace_id; trace_id opens the trace in the Traces data source).", "target").
		WithRow(p.row("Status")).
		WithPanel(p.proberStat(6, 5)).
		WithPanel(p.stat("Last probe",
			"Result of the most recent probe per module (llm_prober_last_probe_success).",
			"none", 6, 5, common.BigValueTextModeValueAndName, okMapping, thresholds("red", 1.0, "green"),
			q{expr: e(`min by (location, target, model, module) (llm_prober_last_probe_success{SEL})`), legend: "{{target}} {{module}} {{location}}", instant: true})).
		WithPanel(p.stat("Time since last probe",
			"Seconds since the last probe finished. More than a few probe intervals means the prober is stuck. A prober that is not scraped (Prober DOWN) keeps its last probes here, growing, instead of vanishing.",
			"s", 6, 5, common.BigValueTextModeValueAndName, nil, thresholds("green", 120.0, "red"),
			q{expr: e(sinceLastProbe), legend: "{{target}} {{module}} {{location}}", instant: true})).
		WithPanel(p.stat("Time since last success",
			"Seconds since the last successful probe, per module and location. A module that has not succeeded since its prober started (llm_prober_last_success_timestamp_seconds is exported only after a success) shows \"never since start\" in red instead of vanishing.",
			"s", 6, 5, common.BigValueTextModeValueAndName, neverMapping, thresholds("green", 300.0, "red"),
			q{expr: e(`time() - max by (location, target, model, module) (llm_prober_last_success_timestamp_seconds{SEL})
or on (location, target, model, module)
-1 * group by (location, target, model, module) (llm_prober_last_probe_timestamp_seconds{SEL})`), legend: "{{target}} {{module}} {{location}}", instant: true})).
		WithRow(p.row("Probe phases")).
		WithPanel(p.ts("Mean probe phases",
			"Where a probe spends its time, stacked: waiting for response headers, then for the first token (TTFT - headers), then decoding (E2E - TTFT). Means over successful probes."+successOnly,
			"s", 12, 8, tsOpts{min: zero, stacked: true},
			q{expr: meanOf("llm_prober_time_to_headers_seconds"), legend: "headers {{target}} {{model}} {{location}}"},
			q{expr: meanOf("llm_prober_time_to_first_token_seconds") + "\n- " + meanOf("llm_prober_time_to_headers_seconds"), legend: "first token {{target}} {{model}} {{location}}"},
			q{expr: meanOf("llm_prober_e2e_latency_seconds") + "\n- " + meanOf("llm_prober_time_to_first_token_seconds"), legend: "decode {{target}} {{model}} {{location}}"}).
			NoValue(noSuccess)).
		WithPanel(p.ts("Time to headers",
			"Percentiles of the time from sending the request to receiving response headers (llm_prober_time_to_headers_seconds)."+successOnly,
			"s", 12, 8, tsOpts{min: zero},
			quantiles("llm_prober_time_to_headers_seconds", "target, model", true)...).
			NoValue(noSuccess)).
		WithPanel(p.ts("End-to-end latency by module",
			"Probe end-to-end latency percentiles per module. Click an exemplar for its probe_id."+successOnly,
			"s", 24, 8, tsOpts{min: zero},
			quantiles("llm_prober_e2e_latency_seconds", "target, model, module", true)...).
			NoValue(noSuccess)).
		WithRow(p.row("Client-side vs server-side")).
		WithPanel(p.ts("TTFT: client vs server (p90)",
			"p90 time to first token measured by the probes (client, includes network and HTTP stack) vs reported by the server's own histogram (all traffic). A large gap points outside the engine (proxy, network, tokenizer).",
			"s", 12, 8, tsOpts{min: zero},
			q{expr: quantileExpr("0.9", "target, model", "llm_prober_time_to_first_token_seconds"), legend: "client {{target}} {{model}} {{location}}", exemplar: true},
			q{expr: e(`histogram_quantile(0.9, sum by (le, target, model) (rate(llm_prober_server_time_to_first_token_seconds_bucket{SEL}[$__rate_interval])))`), legend: "server {{target}} {{model}}"})).
		WithPanel(p.ts("TTFT: client vs server (mean)",
			"Mean time to first token, probes vs server histogram.",
			"s", 12, 8, tsOpts{min: zero},
			q{expr: meanOf("llm_prober_time_to_first_token_seconds"), legend: "client {{target}} {{model}} {{location}}"},
			q{expr: meanOf("llm_prober_server_time_to_first_token_seconds"), legend: "server {{target}} {{model}}"})).
		WithPanel(p.ts("Inter-token latency: client vs server (p90)",
			"p90 gap between tokens seen by the probes vs the server's inter-token latency histogram (per engine step).",
			"s", 12, 8, tsOpts{min: zero},
			q{expr: quantileExpr("0.9", "target, model", "llm_prober_inter_token_latency_seconds"), legend: "client {{target}} {{model}} {{location}}", exemplar: true},
			q{expr: e(`histogram_quantile(0.9, sum by (le, target, model) (rate(llm_prober_server_inter_token_latency_seconds_bucket{SEL}[$__rate_interval])))`), legend: "server {{target}} {{model}}"})).
		WithPanel(p.ts("E2E latency: client vs server (p90)",
			"p90 end-to-end latency of the probes vs the server's request latency histogram (all traffic).",
			"s", 12, 8, tsOpts{min: zero},
			q{expr: quantileExpr("0.9", "target, model", "llm_prober_e2e_latency_seconds"), legend: "client {{target}} {{model}} {{location}}", exemplar: true},
			q{expr: e(`histogram_quantile(0.9, sum by (le, target, model) (rate(llm_prober_server_e2e_request_latency_seconds_bucket{SEL}[$__rate_interval])))`), legend: "server {{target}} {{model}}"}))
	b = b.WithRow(p.row("Prefill by prompt length")).
		WithPanel(p.ts("TTFT by prompt length (p50)",
			"Median time to first token of the modules that send a prompt of a set size (prompt_tokens), one series per module: TTFT against prompt length. Cold modules (cache: cold or paired) show full prefill; warm ones the prefix cache. Empty when no module sets prompt_tokens.",
			"s", 12, 8, tsOpts{min: zero},
			q{expr: "(" + quantileExpr("0.5", "target, model, module", "llm_prober_time_to_first_token_seconds") +
				`) and on (location, target, model, module) llm_prober_prompt_length_tokens{` + sel + `}`, legend: "{{module}} {{target}} {{location}}", exemplar: true}).
			NoValue(noPromptTokens)).
		WithPanel(p.ts("Prefill throughput (p50)",
			"Median prefill speed of cold probes with a set prompt length: uncached prompt tokens divided by TTFT. It falls as prompts grow when attention dominates, and with contention on a busy server.",
			"suffix: tok/s", 12, 8, tsOpts{min: zero},
			quantiles("llm_prober_prefill_tokens_per_second", "target, model, module", false)[0]).
			NoValue(noPromptTokens))
	return latencyHeatmaps(b, p).
		WithRow(p.row("Failures and output")).
		WithPanel(p.table("Recent failures",
			"Failed probes in the dashboard time range by module and reason, rounded to whole probes (increase extrapolates); module × reason pairs without a failure are left out.",
			"short", 12, 8,
			q{expr: e(`round(sum by (location, target, module, reason) (increase(llm_prober_probe_failures_total{SEL}[$__range]))) > 0`), legend: "{{module}} {{reason}} {{location}}", instant: true, table: true}).
			NoValue("No failed probe in the time range")).
		WithPanel(p.ts("Failures by reason",
			"Failed probes per second by module and reason; pairs with no failure in the dashboard range are hidden.",
			"reqps", 12, 8, tsOpts{min: zero, bars: true, stacked: true},
			q{expr: nonZero(`sum by (location, target, module, reason) (rate(llm_prober_probe_failures_total{SEL}[$__rate_interval]))`, "llm_prober_probe_failures_total", "location, target, module, reason"), legend: "{{reason}} {{module}} {{location}}"}).
			NoValue(noFailure)).
		WithPanel(p.ts("Warm-up probes after restarts",
			"Probes of the warm-up just after the target restarted (a new process start time or counters reset in its metrics, or a failure streak ending), by outcome. Failures among them count as any failure; successes count as good and their latencies stay out of the SLO series. Bursts mark deploys and crashes. Zero while the target has not restarted.",
			"reqps", 12, 8, tsOpts{min: zero, bars: true, stacked: true},
			q{expr: e(`sum by (location, target, module, outcome) (rate(llm_prober_warmup_probes_total{SEL}[$__rate_interval]))`), legend: "{{outcome}} {{module}} {{location}}"})).
		WithPanel(p.ts("Output tokens per probe",
			"Mean generated tokens per probe (llm_prober_output_tokens_total / llm_prober_probes_total).",
			"short", 12, 8, tsOpts{min: zero},
			q{expr: ratioOfRates("llm_prober_output_tokens_total", "llm_prober_probes_total"), legend: "{{target}} {{model}} {{location}}"})).
		WithPanel(p.ts("Server metrics scrape",
			"Whether llm-prober's last scrape of the target's own /metrics succeeded, and how long it took.",
			"s", 12, 8, tsOpts{min: zero},
			q{expr: `max by (target) (llm_prober_server_scrape_duration_seconds{cluster=~"$cluster", job=~"$job", instance=~"$instance", target=~"$target"})`, legend: "duration {{target}}"},
			q{expr: `min by (target) (llm_prober_server_scrape_success{cluster=~"$cluster", job=~"$job", instance=~"$instance", target=~"$target"})`, legend: "success (1 = ok) {{target}}"}).
			OverrideByQuery("B", []dashboard.DynamicConfigValue{{Id: "unit", Value: "none"}}))
}
