// Package workload says what bench sends: the Workload interface (a
// deterministic, seeded sequence of Items: prompt, lengths, prefix) and
// its sources — synthetic prompts sized with the server's tokenizer,
// ShareGPT and JSONL datasets, Mooncake and BurstGPT traces, multi-turn
// conversations, and workloads derived from what a Prometheus saw
// (length distributions, burstiness, prefix hit rate) with their file
// format. It also owns freshness: reseeding and cache salts, and the
// prefix-cache reset.
//
// Imports: backend, config, prompt, prober. Never the engine (loadtest) or anything
// above it.
package workload
