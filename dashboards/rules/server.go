package rules

import (
	"fmt"
	"strings"
)

// Capacity thresholds. vLLM preempts when it cannot allocate a block, so a
// saturated server's KV usage saw-tooths between the level after a
// preemption and 100 %: "full" is judged by the peaks (kvFull) plus a
// level held most of the time (kvHigh at the median), never by every sample.
// With few long sequences per engine a preemption frees a large share of
// the cache: the drill's saturated mock (2 sequences, 16 blocks) has its
// median near 0.7, so the level is 0.6.
const (
	kvHigh = 0.6
	kvFull = 0.95
)

// kvSaturated holds per engine when over window the KV cache was above
// kvHigh at the median sample and reached kvFull; its value is the median.
func kvSaturated(window string) string {
	return fmt.Sprintf(`(
  quantile_over_time(0.5, llm_prober_server_kv_cache_usage_ratio{SEL}[%[1]s]) >= %[2]g
  and
  max_over_time(llm_prober_server_kv_cache_usage_ratio{SEL}[%[1]s]) >= %[3]g
)`, window, kvHigh, kvFull)
}

// serverScrapeOK keeps a capacity alert only while the prober scrapes the
// server's metrics: when the server or the prober is gone, the range
// windows would otherwise hold the last values for minutes. Over
// holdWindow, so that one missed scrape does not reset the for: timers and
// a dead prober's capacity alerts hold until LLMProberDown fires.
const serverScrapeOK = `and on (<JI>, target)
max_over_time(llm_prober_server_scrape_success{SEL}[` + holdWindow + `]) == 1`

func serverRecordingGroup(c Config) Group {
	rec := func(comment, name, expr string) Rule {
		return Rule{Comment: comment, Record: name, Expr: c.expand(expr)}
	}
	cand := func(rank int, bottleneck, expr string) Rule {
		return Rule{Record: "target_model:llm_prober_server_bottleneck:candidate_rank",
			Expr:   c.expand(fmt.Sprintf("%d * group by (<TS>) (\n%s\n)", rank, indent(expr))),
			Labels: map[string]string{"bottleneck": bottleneck}}
	}
	rules := []Rule{
		// Ratios of counters that stood still over the window (a server
		// that never drafts, an idle one) record nothing, never NaN (0/0):
		// every denominator is kept only where it is above 0.
		rec("Fraction of proposed draft tokens the target model accepted; none\n"+
			"where the server proposed no draft tokens over the window.",
			"target_model:llm_prober_server_spec_decode_acceptance:ratio_rate5m", `
sum by (<TS>) (rate(llm_prober_server_spec_decode_accepted_tokens_total{SEL}[5m]))
/ (sum by (<TS>) (rate(llm_prober_server_spec_decode_draft_tokens_total{SEL}[5m])) > 0)`),
		rec("Tokens emitted per decoding step with speculation: 1 + accepted/drafts;\n"+
			"none where the server drafted nothing over the window.",
			"target_model:llm_prober_server_spec_decode_acceptance_length:mean5m", `
1 + sum by (<TS>) (rate(llm_prober_server_spec_decode_accepted_tokens_total{SEL}[5m]))
/ (sum by (<TS>) (rate(llm_prober_server_spec_decode_drafts_total{SEL}[5m])) > 0)`),
		rec("Prefix cache hit rate, in prompt tokens; none without prompt tokens.",
			"target_model:llm_prober_server_prefix_cache_hit:ratio_rate5m", `
sum by (<TS>) (rate(llm_prober_server_prefix_cache_hits_total{SEL}[5m]))
/ (sum by (<TS>) (rate(llm_prober_server_prefix_cache_queries_total{SEL}[5m])) > 0)`),
		rec("Preemptions per finished request (+Inf when preempting with nothing\n"+
			"finishing; none when neither happens).",
			"target_model:llm_prober_server_preemptions_per_request:ratio_rate5m", `
sum by (<TS>) (rate(llm_prober_server_preemptions_total{SEL}[5m]))
/ (sum by (<TS>) (rate(llm_prober_server_requests_finished_total{SEL}[5m])) > 0)
or
(sum by (<TS>) (rate(llm_prober_server_preemptions_total{SEL}[5m])) > 0) / 0`),
		rec("Mean queue time; 0 for servers that export no queue-time histogram\n"+
			"and while nothing finished.",
			"target_model:llm_prober_server_queue_time:mean5m", `
sum by (<TS>) (rate(llm_prober_server_request_queue_time_seconds_sum{SEL}[5m]))
/ (sum by (<TS>) (rate(llm_prober_server_request_queue_time_seconds_count{SEL}[5m])) > 0)
or
0 * sum by (<TS>) (rate(llm_prober_server_time_to_first_token_seconds_count{SEL}[5m]))`),
		rec("Share of the server's service time (request latency minus queue time)\n"+
			"spent in prefill (time to first token minus queue time), from means.",
			"target_model:llm_prober_server_prefill_share:ratio_rate5m", `
(
  sum by (<TS>) (rate(llm_prober_server_time_to_first_token_seconds_sum{SEL}[5m]))
  / (sum by (<TS>) (rate(llm_prober_server_time_to_first_token_seconds_count{SEL}[5m])) > 0)
  - on (<TS>) group_left ()
  target_model:llm_prober_server_queue_time:mean5m
)
/ (
  sum by (<TS>) (rate(llm_prober_server_e2e_request_latency_seconds_sum{SEL}[5m]))
  / (sum by (<TS>) (rate(llm_prober_server_e2e_request_latency_seconds_count{SEL}[5m])) > 0)
  - on (<TS>) group_left ()
  target_model:llm_prober_server_queue_time:mean5m
)`),
	}
	first := cand(1, "kv_cache_exhausted", "max by (<TS>) "+kvSaturated("5m"))
	first.Comment = "Bottleneck classification. Each candidate is recorded with its rank as\n" +
		"the value (1 = most severe); the classification keeps the most severe\n" +
		"candidate per target and records it with value 1:\n" +
		"  target_model:llm_prober_server_bottleneck:state{bottleneck=\"kv_cache_exhausted\"} 1\n" +
		fmt.Sprintf("Ranks: kv_cache_exhausted (over 5m, the worst engine's KV usage was >= %g%% at\n", kvHigh*100) +
		fmt.Sprintf("  the median sample and reached %g%%: saturated, as vLLM shows it)\n", kvFull*100) +
		"  < preempting (more than 1% preemptions per finished request)\n" +
		"  < queueing (on average at least one request waiting over 5m, or probes that\n" +
		"    timed out before their first token while requests were waiting)\n" +
		"  < prefill_bound (more than half of the service time, queueing excluded, is prefill)\n" +
		"  < healthy (server metrics present, none of the above)."
	rules = append(rules,
		first,
		cand(2, "preempting", "target_model:llm_prober_server_preemptions_per_request:ratio_rate5m > 0.01"),
		cand(3, "queueing", `sum by (<TS>) (avg_over_time(llm_prober_server_requests_waiting{SEL}[5m])) >= 1
or
(
  sum by (<TS>) (increase(llm_prober_probe_failures_total{SEL, reason="timeout_first_token"}[5m])) > 0
  and on (<TS>)
  sum by (<TS>) (max_over_time(llm_prober_server_requests_waiting{SEL}[5m])) > 0
)`),
		cand(4, "prefill_bound", "target_model:llm_prober_server_prefill_share:ratio_rate5m > 0.5"),
		cand(5, "healthy", "llm_prober_server_requests_running{SEL}"),
		Rule{Record: "target_model:llm_prober_server_bottleneck:state", Expr: c.expand(`
group by (<TS>, bottleneck) (
  bottomk by (<TS>) (1, target_model:llm_prober_server_bottleneck:candidate_rank)
)`)},
	)
	return Group{
		Comment: "Server-side ratios (scraped from the inference server by llm-prober) and\n" +
			"the bottleneck classification. Aggregated over engine, backend and module.",
		Name:  "llm-prober-server",
		Rules: rules,
	}
}

// youngGuard keeps a series only if it had a sample window ago (within
// the lookback): a range window over a younger series holds a few minutes,
// and an alert would claim more evidence than it had.
func youngGuard(metric, window string) string {
	return metric + "{SEL} offset " + window
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

func serverAlertGroup(c Config) Group {
	dash := c.dashboardURL(CapacityDashboardUID, true)
	return Group{
		Comment: "Inference-server capacity, from the server metrics llm-prober re-exports.\n" +
			"They fire on sustained saturation as vLLM shows it, never on one sample.",
		Name: "llm-prober-server",
		Rules: []Rule{
			{
				Alert: "LLMProberServerMetricsScrapeFailing",
				Comment: "Failing throughout the last " + holdWindow + ", so that a missed scrape of the prober\n" +
					"(a one-step gap) does not restart the 10m.",
				Expr:   c.expand(`max by (<JI>, target) (max_over_time(llm_prober_server_scrape_success{SEL}[` + holdWindow + `])) == 0`),
				For:    "10m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "llm-prober cannot scrape an inference server's own metrics.",
					"description": "{{ $labels.instance }} has failed to scrape the /metrics endpoint of {{ $labels.target }} " +
						"for 10 minutes; server-side panels and capacity alerts for it are blind.",
					"runbook_url":   c.runbook("LLMProberServerMetricsScrapeFailing"),
					"dashboard_url": c.dashboardURL(TargetDashboardUID, false) + "&var-target={{ $labels.target | urlquery }}",
				},
			},
			{
				Comment: "Only engines whose series existed 10m ago (a full window, so that the\n" +
					"15 minutes of the summary hold: 10m window, 5m for).",
				Alert: "LLMProberKVCacheNearFull",
				Expr: c.expand("max by (<TS>) (\n" + indent(kvSaturated("10m")+"\nand "+youngGuard("llm_prober_server_kv_cache_usage_ratio", "10m")) +
					"\n)\n" + serverScrapeOK),
				For:    "5m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "An inference server's KV cache has been saturated for 15 minutes.",
					"description": fmt.Sprintf("The KV cache of {{ $labels.target }} (model {{ $labels.model }}) was at least "+
						"{{ $value | humanizePercentage }} full at half of the samples of the last 10 minutes and reached %g%%; "+
						"new requests wait and running ones are preempted.", kvFull*100),
					"runbook_url":   c.runbook("LLMProberKVCacheNearFull"),
					"dashboard_url": dash,
				},
			},
			{
				Comment: "A trend, not a state, so info: it annotates the tickets and pages it\n" +
					"precedes. Guarded against ramps: the series must be 30m old (no start-up\n" +
					"or restart ramp in the window) and still climbing over the last 10m.",
				Alert: "LLMProberKVCacheExhaustionForecast",
				Expr: c.expand(`
max by (<TS>) (
  predict_linear(llm_prober_server_kv_cache_usage_ratio{SEL}[30m], 3600) >= 1
  and deriv(llm_prober_server_kv_cache_usage_ratio{SEL}[10m]) > 0
  and avg_over_time(llm_prober_server_kv_cache_usage_ratio{SEL}[10m]) > 0.5
  and llm_prober_server_kv_cache_usage_ratio{SEL} offset 30m
)
` + serverScrapeOK),
				For:    "15m",
				Labels: map[string]string{"severity": "info"},
				Annotations: map[string]string{
					"summary": "An inference server's KV cache is forecast to be full within an hour.",
					"description": "At the trend of the last 30 minutes, the KV cache of {{ $labels.target }} " +
						"(model {{ $labels.model }}) would be at {{ $value | humanizePercentage }} usage in one hour.",
					"runbook_url":   c.runbook("LLMProberKVCacheExhaustionForecast"),
					"dashboard_url": dash,
				},
			},
			{
				Alert: "LLMProberHighPreemptionRate",
				Expr: c.expand(`
target_model:llm_prober_server_preemptions_per_request:ratio_rate5m > 0.01
` + serverScrapeOK),
				For:    "10m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "An inference server is preempting more than 1% of its requests.",
					"description": "{{ $labels.target }} (model {{ $labels.model }}) preempted requests " +
						"{{ $value | humanizePercentage }} as often as it finished them over the last 5 minutes.",
					"runbook_url":   c.runbook("LLMProberHighPreemptionRate"),
					"dashboard_url": dash,
				},
			},
			{
				Comment: "A queue that persists, not one that grows: the 20th percentile of the\n" +
					"waiting requests over 10m is >= 1 when requests waited at 80 % of the samples.\n" +
					"Only series that existed 10m ago (a full window: 10m and 5m for are the\n" +
					"summary's 15 minutes).",
				Alert: "LLMProberRequestsQueueing",
				Expr: c.expand(`
max by (<TS>) (
  quantile_over_time(0.2, llm_prober_server_requests_waiting{SEL}[10m]) >= 1
  and ` + youngGuard("llm_prober_server_requests_waiting", "10m") + `
)
` + serverScrapeOK),
				For:    "5m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "Requests have been waiting on an inference server for most of 15 minutes.",
					"description": "{{ $labels.target }} (model {{ $labels.model }}) had at least {{ $value }} requests " +
						"waiting at 80% of the samples of the last 10 minutes: arrivals exceed what it can schedule.",
					"runbook_url":   c.runbook("LLMProberRequestsQueueing"),
					"dashboard_url": dash,
				},
			},
		},
	}
}
