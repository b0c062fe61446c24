package workload

import (
	"math/rand/v2"
)

// Item is one request of a workload.
type Item struct {
	Prompt       string // the completions prompt, or the chat user message
	PromptTokens int    // planned prompt length in tokens (0: unknown)
	OutputTokens int    // max_tokens, pinned with ignore_eos and min_tokens
}

// Workload hands out the requests of a run. Item(i) is deterministic for
// a given seed and index, whatever order it is called in, so a run with
// the same seed sends the same prompts.
type Workload interface {
	Item(i int) Item
	// Describe names the workload in the report.
	Describe() string
}

// itemRand is the generator for item i of a workload seeded with seed.
func itemRand(seed int64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(i)*0x9e3779b97f4a7c15+1))
}

// spread draws uniformly from [n(1−r), n(1+r)], at least 1, as vllm bench
// serve's --random-range-ratio.
func spread(rng *rand.Rand, n int, r float64) int {
	if r <= 0 || n <= 0 {
		return max(n, 1)
	}
	lo, hi := int(float64(n)*(1-r)), SpreadMax(n, r)
	lo = max(lo, 1)
	if hi <= lo {
		return lo
	}
	return lo + rng.IntN(hi-lo+1)
}

// SpreadMax is the largest length spread draws for n and r.
func SpreadMax(n int, r float64) int {
	if r <= 0 || n <= 0 {
		return max(n, 1)
	}
	return int(float64(n) * (1 + r))
}
