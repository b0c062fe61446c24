package collector

import "github.com/llm-prober/llm-prober/backend"

// Families for the workload shape and absolute capacity (issue 17): the
// per-request token and phase histograms, tokens per engine step, the KV
// cache's size, waiting requests by reason, LoRA adapters and the server
// process's start time. Backends that lack a source simply omit them.
var (
	famReqPromptTokens = newFamily(backend.ReqPromptTokens,
		"Prompt tokens per finished request, re-exported with the server's own buckets.", kindHistogram)
	famReqGenTokens = newFamily(backend.ReqGenTokens,
		"Generated tokens per finished request, re-exported with the server's own buckets.", kindHistogram)
	famPrefillTime = newFamily(backend.PrefillTime,
		"Server-side time from a request's first scheduling to its first token, re-exported with the server's own buckets.", kindHistogram)
	famDecodeTime = newFamily(backend.DecodeTime,
		"Server-side time from a request's first token to its last, re-exported with the server's own buckets.", kindHistogram)
	famInferenceTime = newFamily(backend.InferenceTime,
		"Server-side time from a request's first scheduling to its last token (prefill + decode), re-exported with the server's own buckets.", kindHistogram)
	famIterationTokens = newFamily(backend.IterationTokens,
		"Tokens processed per engine step (prefill and decode), re-exported with the server's own buckets.", kindHistogram)
	// Sizes are the same on every series of an engine; max never adds up
	// duplicates of an info series.
	famKVBlocks = newRatio(backend.KVBlocks,
		"KV-cache blocks (pages) of an engine, from the server's cache configuration.")
	famKVBlockSize = newRatio(backend.KVBlockSize,
		"Tokens per KV-cache block (page), from the server's cache configuration.")
	famWaitingByReason = newFamily(backend.WaitingByReason,
		"Requests waiting to be scheduled, by the reason the server gives (capacity, deferred).", kindGauge, "reason")
	// vLLM keeps one series per adapter set ever seen, valued by when it
	// was current: the newest one is the current set.
	famLoRAInfo = newMaxGauge(backend.LoRAInfo,
		"LoRA adapters of running and waiting requests (comma-separated names) and the adapter limit; the value is the Unix time the set was current, so the newest series is the current set.",
		"max_lora", "running_adapters", "waiting_adapters")
	famStartTime = newRatio(backend.StartTime,
		"Unix time the server process started (process_start_time_seconds), where it exports one.")
)

// newMaxGauge is a gauge aggregated with max, with extra labels.
func newMaxGauge(name backend.Family, help string, extra ...string) *family {
	f := newFamily(name, help, kindGauge, extra...)
	f.useMax = true
	return f
}
