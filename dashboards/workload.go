package dashboards

// workloadShape adds what the traffic looks like: request sizes, finish
// reasons, where a request's time goes and tokens per engine step.
func workloadShape(b *dashboardBuilder, p *panelIDs) *dashboardBuilder {
	return b.WithRow(p.row("Workload shape")).
		WithPanel(p.heatmap("Prompt length",
			"Finished requests per second by prompt length (tokens), from the server's per-request histogram (vLLM request_prompt_tokens, SGLang prompt_tokens_histogram, TGI request_input_length).",
			"short", 8, 8, "llm_prober_server_request_prompt_tokens", false)).
		WithPanel(p.heatmap("Generation length",
			"Finished requests per second by generated tokens, from the server's per-request histogram (vLLM request_generation_tokens, SGLang generation_tokens_histogram, TGI request_generated_tokens).",
			"short", 8, 8, "llm_prober_server_request_generation_tokens", false)).
		WithPanel(p.ts("Mean tokens per request",
			"Mean prompt and generation tokens of the requests that finished in each interval (histogram _sum / _count).",
			"short", 8, 8, tsOpts{min: zero},
			q{expr: meanOf("llm_prober_server_request_prompt_tokens"), legend: "prompt {{target}} {{model}}"},
			q{expr: meanOf("llm_prober_server_request_generation_tokens"), legend: "generation {{target}} {{model}}"})).
		WithPanel(p.ts("Finish reasons (share)",
			"Share of finished requests by finish reason. A rising length share means answers are being truncated at max_tokens; abort means clients gave up (often timeouts); error and repetition are server-side.",
			"percentunit", 8, 8, tsOpts{min: zero, max: one, stacked: true},
			q{expr: e(`sum by (target, model, reason) (rate(llm_prober_server_requests_finished_total{SEL}[$__rate_interval]))
/ on (target, model) group_left () sum by (target, model) (rate(llm_prober_server_requests_finished_total{SEL}[$__rate_interval]))`), legend: "{{reason}} {{target}} {{model}}"})).
		WithPanel(p.ts("Mean request phases",
			"Where a finished request spent its time, stacked: waiting in the queue, prefill (first scheduling to first token) and decode (first to last token), means from vLLM's request_queue/prefill/decode_time_seconds. Other backends show the phases they export.",
			"s", 8, 8, tsOpts{min: zero, stacked: true},
			q{expr: meanOf("llm_prober_server_request_queue_time_seconds"), legend: "queue {{target}} {{model}}"},
			q{expr: meanOf("llm_prober_server_request_prefill_time_seconds"), legend: "prefill {{target}} {{model}}"},
			q{expr: meanOf("llm_prober_server_request_decode_time_seconds"), legend: "decode {{target}} {{model}}"})).
		WithPanel(p.ts("Tokens per engine step",
			"Mean and p90 tokens an engine step processed (prefill and decode tokens of the whole batch), from vLLM's iteration_tokens_total. Low values under load mean small batches; values near max_num_batched_tokens mean the step budget is the limit.",
			"short", 8, 8, tsOpts{min: zero},
			q{expr: meanOf("llm_prober_server_iteration_tokens"), legend: "mean {{target}} {{model}}"},
			q{expr: e(`histogram_quantile(0.9, sum by (le, target, model) (rate(llm_prober_server_iteration_tokens_bucket{SEL}[$__rate_interval])))`), legend: "p90 {{target}} {{model}}"}).
			NoValue("The server does not export tokens per engine step (vLLM's iteration_tokens_total only)"))
}
