// Package collector scrapes the inference servers' own /metrics endpoints
// in the background and re-exports their capacity signals (KV cache,
// queue, preemptions, token and latency counters) under normalised,
// promlint-clean names, whatever the backend (vLLM, SGLang, TGI,
// llama.cpp, TensorRT-LLM).
//
// Scrapes never run inside Collect: each target has its own goroutine and
// ticker, and Collect only turns the last parsed snapshot into const
// metrics, so a slow or broken target can never block or fail our /metrics.
// Scrapers start at a random phase within their interval and share one cap
// on scrapes in flight, and targets with identical client settings share
// one HTTP client (package httpclient), as probes do.
package collector
