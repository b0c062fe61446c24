package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
)

// ratioOfRates is sum(rate(num)) / sum(rate(den)) by target, model, and
// by location too for probe series.
func ratioOfRates(num, den string) string {
	by := "target, model"
	if isProbeSeries(num) {
		by = "location, " + by
	}
	return e(`sum by (` + by + `) (rate(` + num + `{SEL}[$__rate_interval]))
/ sum by (` + by + `) (rate(` + den + `{SEL}[$__rate_interval]))`)
}

func capacity() *dashboardBuilder {
	p := &panelIDs{}
	b := base("llm-prober-capacity", "llm-prober / Capacity",
		"Inference-server capacity signals scraped by llm-prober from each target's own /metrics: one row per replica, KV cache (as a ratio, in tokens and in sequences of headroom), scheduler queue, preemptions, caching, speculative decoding, token throughput, workload shape, and GPUs from DCGM exporter. Every prober (each location, each replica) re-exports the same server: totals count it once, from the prober that sees the most.", "capacity").
		WithVariable(gpuJoinVar()).
		WithRow(p.row("Bottleneck and KV cache")).
		WithPanel(p.stat("Bottleneck",
			"Current bottleneck per target, as each prober (instance) sees its server, from the recording rules' candidates (target_model:llm_prober_server_bottleneck:candidate_rank, the most severe kept, as target_model:llm_prober_server_bottleneck:state does): kv_cache_exhausted (red) > preempting (red) > queueing (orange) > prefill_bound (yellow) > healthy (green). Empty when the server's metrics are not scraped (no server_metrics, or the scrape fails) or alerts/llm-prober-rules.yml is not loaded.",
			"none", 24, 4, common.BigValueTextModeName, nil, thresholds("red", 3.0, "orange", 4.0, "yellow", 5.0, "green"),
			q{expr: `bottomk by (cluster, job, instance, target, model) (1, target_model:llm_prober_server_bottleneck:candidate_rank{cluster=~"$cluster", job=~"$job", instance=~"$instance", target=~"$target", model=~"$model"})`, legend: "{{target}} {{model}} ({{instance}}): {{bottleneck}}", instant: true}).
			NoValue("No server metrics for the selected targets (no server_metrics configured, the scrape fails) or the recording rules are not loaded")).
		WithPanel(p.replicaTable()).
		WithPanel(p.ts("KV cache usage",
			"Fraction of the KV cache blocks in use, per engine (llm_prober_server_kv_cache_usage_ratio). Sustained values above 90% mean new requests wait or running ones are preempted.",
			"percentunit", 12, 8, tsOpts{min: zero, max: one},
			q{expr: e(`max by (target, model, engine) (llm_prober_server_kv_cache_usage_ratio{SEL})`), legend: "{{target}} {{model}} engine {{engine}}"})).
		WithPanel(p.ts("KV cache usage forecast (1h ahead)",
			"Linear extrapolation of KV cache usage one hour ahead from the last 30 minutes (predict_linear), clamped to 0-200%. At or above 100% the cache is forecast to be exhausted within the hour. Only engines whose series is 30 minutes old: a younger one (a start, a restart, a new replica) holds a ramp, not a trend, and swung the line from -100% to +1,500%. The forecast stops with the usage series: a dead server (or one llm-prober no longer scrapes) is not extrapolated from its last 30 minutes.",
			"percentunit", 12, 8, tsOpts{min: zero},
			q{expr: e(`max by (target, model) (
  clamp(predict_linear(llm_prober_server_kv_cache_usage_ratio{SEL}[30m], 3600), 0, 2)
  and llm_prober_server_kv_cache_usage_ratio{SEL} offset 30m
)
and on (target, model) max by (target, model) (llm_prober_server_kv_cache_usage_ratio{SEL})`), legend: "forecast {{target}} {{model}}"},
			q{expr: e(`max by (target, model) (llm_prober_server_kv_cache_usage_ratio{SEL})`), legend: "now {{target}} {{model}}"})).
		WithRow(p.row("Scheduler")).
		WithPanel(p.ts("Running vs waiting requests",
			"Requests in the running batch and requests waiting to be scheduled, summed over engines. A persistent waiting queue means the server is saturated.",
			"short", 12, 8, tsOpts{min: zero},
			q{expr: e(serverSum("target, model", `llm_prober_server_requests_running{SEL}`)), legend: "running {{target}} {{model}}"},
			q{expr: e(serverSum("target, model", `llm_prober_server_requests_waiting{SEL}`)), legend: "waiting {{target}} {{model}}"})).
		WithPanel(p.ts("Mean queue time",
			"Mean time requests spent queued before first being scheduled, from the server's request queue time histogram.",
			"s", 12, 8, tsOpts{min: zero},
			q{expr: ratioOfRates("llm_prober_server_request_queue_time_seconds_sum", "llm_prober_server_request_queue_time_seconds_count"), legend: "{{target}} {{model}}"})).
		WithPanel(p.ts("Preemption rate",
			"Requests preempted per second (their KV blocks were freed to make room; they are recomputed later).",
			"ops", 12, 8, tsOpts{min: zero},
			q{expr: e(serverSum("target, model", `rate(llm_prober_server_preemptions_total{SEL}[$__rate_interval])`)), legend: "{{target}} {{model}}"})).
		WithPanel(p.ts("Preemptions per finished request",
			"Preemptions divided by finished requests. Above 1% (the alert threshold) the server is memory bound.",
			"percentunit", 12, 8, tsOpts{min: zero},
			q{expr: ratioOfRates("llm_prober_server_preemptions_total", "llm_prober_server_requests_finished_total"), legend: "{{target}} {{model}}"})).
		WithRow(p.row("Caching and speculative decoding")).
		WithPanel(p.ts("Prefix cache hit rate",
			"Share of queried prompt tokens found in the prefix cache (Δhits / Δqueries).",
			"percentunit", 8, 8, tsOpts{min: zero, max: one},
			q{expr: ratioOfRates("llm_prober_server_prefix_cache_hits_total", "llm_prober_server_prefix_cache_queries_total"), legend: "{{target}} {{model}}"})).
		WithPanel(p.ts("Speculative decoding acceptance rate",
			"Share of proposed draft tokens the target model accepted: Δaccepted_tokens / Δdraft_tokens. Also shown per draft position.",
			"percentunit", 8, 8, tsOpts{min: zero, max: one},
			q{expr: drafting(ratioOfRates("llm_prober_server_spec_decode_accepted_tokens_total", "llm_prober_server_spec_decode_draft_tokens_total"), "llm_prober_server_spec_decode_draft_tokens_total"), legend: "all {{target}} {{model}}"},
			q{expr: drafting(e(`sum by (target, model, position) (rate(llm_prober_server_spec_decode_accepted_tokens_per_position_total{SEL}[$__rate_interval]))
/ on (target, model) group_left () sum by (target, model) (rate(llm_prober_server_spec_decode_drafts_total{SEL}[$__rate_interval]))`), "llm_prober_server_spec_decode_drafts_total"), legend: "position {{position}} {{target}} {{model}}"}).
			NoValue(noDrafts)).
		WithPanel(p.ts("Speculative decoding mean acceptance length",
			"Tokens produced per speculative step: 1 + Δaccepted_tokens / Δdrafts.",
			"short", 8, 8, tsOpts{min: one},
			q{expr: drafting("1 + "+ratioOfRates("llm_prober_server_spec_decode_accepted_tokens_total", "llm_prober_server_spec_decode_drafts_total"), "llm_prober_server_spec_decode_drafts_total"), legend: "{{target}} {{model}}"}).
			NoValue(noDrafts)).
		WithRow(p.row("Throughput")).
		WithPanel(p.ts("Token throughput",
			"Prompt (prefill) and generated tokens per second processed by the server, all clients included.",
			"suffix: tok/s", 12, 8, tsOpts{min: zero, stacked: true},
			q{expr: e(serverSum("target, model", `rate(llm_prober_server_prompt_tokens_total{SEL}[$__rate_interval])`)), legend: "prompt {{target}} {{model}}"},
			q{expr: e(serverSum("target, model", `rate(llm_prober_server_generation_tokens_total{SEL}[$__rate_interval])`)), legend: "generation {{target}} {{model}}"})).
		WithPanel(p.ts("Finished requests by reason",
			"Requests finished per second by finish reason (stop, length, abort, error, ...).",
			"reqps", 12, 8, tsOpts{min: zero, stacked: true},
			q{expr: e(serverSum("target, model, reason", `rate(llm_prober_server_requests_finished_total{SEL}[$__rate_interval])`)), legend: "{{reason}} {{target}} {{model}}"}))
	return gpus(workloadShape(kvAbsolute(headroom(b, p), p), p), p)
}
