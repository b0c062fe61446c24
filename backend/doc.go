// Package backend is what llm-prober knows about each inference server:
// one file per backend (vllm.go, sglang.go, ...) registers its name, how
// it is recognised in a /metrics exposition, the /tokenize dialect it
// speaks, what it accepts beyond the OpenAI API (Caps), and which of its
// metric families feed each normalised server family.
//
// The package is plain data and imports nothing of llm-prober's: config
// checks names against it, collector interprets the mappings, prompt picks
// the dialects, and prober and bench consult the capabilities, so that no
// other package compares backend names. Adding a backend is adding one file
// here plus a recorded exposition under collector/testdata (see
// docs/server-metrics.md, "Adding a backend").
package backend
