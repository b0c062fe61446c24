package collector

// Families for the workload shape and absolute capacity (issue 17): the
// per-request token and phase histograms, tokens per engine step, the KV
// cache's size, waiting requests by reason, LoRA adapters and the server
// process's start time. Backends that lack a source simply omit them.
var (
	famReqPromptTokens = newFamily("llm_prober_server_request_prompt_tokens",
		"Prompt tokens per finished request, re-exported with the server's own buckets.", kindHistogram)
	famReqGenTokens = newFamily("llm_prober_server_request_generation_tokens",
		"Generated tokens per finished request, re-exported with the server's own buckets.", kindHistogram)
	famPrefillTime = newFamily("llm_prober_server_request_prefill_time_seconds",
		"Server-side time from a request's first scheduling to its first token, re-exported with the server's own buckets.", kindHistogram)
	famDecodeTime = newFamily("llm_prober_server_request_decode_time_seconds",
		"Server-side time from a request's first token to its last, re-exported with the server's own buckets.", kindHistogram)
	famInferenceTime = newFamily("llm_prober_server_request_inference_time_seconds",
		"Server-side time from a request's first scheduling to its last token (prefill + decode), re-exported with the server's own buckets.", kindHistogram)
	famIterationTokens = newFamily("llm_prober_server_iteration_tokens",
		"Tokens processed per engine step (prefill and decode), re-exported with the server's own buckets.", kindHistogram)
	// Sizes are the same on every series of an engine; max never adds up
	// duplicates of an info series.
	famKVBlocks = newRatio("llm_prober_server_kv_cache_blocks",
		"KV-cache blocks (pages) of an engine, from the server's cache configuration.")
	famKVBlockSize = newRatio("llm_prober_server_kv_cache_block_size_tokens",
		"Tokens per KV-cache block (page), from the server's cache configuration.")
	famWaitingByReason = newFamily("llm_prober_server_requests_waiting_by_reason",
		"Requests waiting to be scheduled, by the reason the server gives (capacity, deferred).", kindGauge, "reason")
	// vLLM keeps one series per adapter set ever seen, valued by when it
	// was current: the newest one is the current set.
	famLoRAInfo = newMaxGauge("llm_prober_server_lora_requests_info",
		"LoRA adapters of running and waiting requests (comma-separated names) and the adapter limit; the value is the Unix time the set was current, so the newest series is the current set.",
		"max_lora", "running_adapters", "waiting_adapters")
	famStartTime = newRatio("llm_prober_server_start_time_seconds",
		"Unix time the server process started (process_start_time_seconds), where it exports one.")
)

// newMaxGauge is a gauge aggregated with max, with extra labels.
func newMaxGauge(name, help string, extra ...string) *family {
	f := newFamily(name, help, kindGauge, extra...)
	f.useMax = true
	return f
}
