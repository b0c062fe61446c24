// Package mockvllm is a simulated vLLM OpenAI-compatible server for tests,
// demos and soak runs.
//
// It serves POST /v1/chat/completions and /v1/completions (streaming and
// not), POST /tokenize, POST /reset_prefix_cache, GET /v1/models, /health,
// /version, /metrics and /trace. Output is shaped
// like current vLLM: the same SSE chunk layout, usage reporting and
// vllm:* metric families with vLLM's bucket bounds.
//
// Behind the HTTP layer a small engine model decides timing: a limited
// number of running slots, a FIFO waiting queue, and a KV-cache block
// budget with recompute preemption. Metric values come from that model, so
// driving the server with enough concurrent long requests really fills the
// KV cache, grows the queue and preempts requests. With PerSequence set,
// each decode step takes ITL + PerSequence × running, so throughput
// saturates and latency climbs past a knee that Options.SaturationRate
// computes from the settings alone.
//
// DecodeStall freezes every Nth request mid-answer for a set time, so that
// stall SLOs (max_itl) can be tested against a known stall.
//
// Prefix caching is either a fixed hit rate (PrefixCacheHitRate) or, with
// PrefixCacheBlocks set, a simulation of vLLM's: prompts hashed in chained
// blocks (salted by cache_salt), the longest cached run of leading blocks
// served, LRU eviction; with PrefillPerToken each uncached prompt token
// adds prefill time, so cold and warm prompts and long and short ones
// differ in TTFT. The tokenizer (one token a word, or CharsPerToken bytes)
// is the same for /tokenize, usage and the prefix cache.
//
// Every request's true timings (arrival, headers, each SSE event, end) are
// recorded in a Trace, which tests fetch with [Server.Emissions], and any
// client in another process with GET /trace?id=REQUEST_ID, to compare
// against what a client measured.
package mockvllm
