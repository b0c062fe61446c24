package summary

import (
	"math"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
)

// vllmPeaks computes max_output_tokens_per_s and max_concurrent_requests
// as vllm bench serve defines them: one-second buckets from the earliest
// start of a successful measured request (not from the warm-up), output
// tokens counted in the bucket of their arrival, and a successful request
// counted in every bucket from its start's to that of start + latency
// (its last byte; the client's teardown after it is not counted). Token
// arrivals are the exact ones (ns), or to the millisecond in a run past
// loadtest.MaxTokenTimes tokens.
func vllmPeaks(r *loadtest.Run) (tokens float64, conc int) {
	origin := int64(math.MaxInt64)
	for i := range r.Records {
		if rec := &r.Records[i]; !rec.Warmup && rec.Success() {
			origin = min(origin, rec.Start)
		}
	}
	if origin == math.MaxInt64 {
		return 0, 0
	}
	sec := func(ns int64) int { return int((ns - origin) / int64(time.Second)) }
	var buckets []int
	add := func(b, n int) {
		for len(buckets) <= b {
			buckets = append(buckets, 0)
		}
		buckets[b] += n
	}
	if r.TokenTimes != nil && !r.TokenTimesDropped {
		// Exact: each token in the second of its arrival (ns), as vllm
		// bench buckets its float seconds.
		for _, t := range r.TokenTimes {
			if t >= origin {
				add(sec(t), 1)
			}
		}
	} else {
		for ms, n := range r.TokensPerMs {
			if t := int64(ms) * int64(time.Millisecond); n > 0 && t >= origin-int64(time.Millisecond) {
				add(max(sec(t), 0), int(n))
			}
		}
	}
	for _, n := range buckets {
		tokens = max(tokens, float64(n))
	}
	buckets = buckets[:0]
	for i := range r.Records {
		rec := &r.Records[i]
		if rec.Warmup || !rec.Success() {
			continue
		}
		add(sec(rec.Start), 1)
		add(sec(rec.Start+rec.E2EL)+1, -1)
	}
	cur := 0
	for _, d := range buckets {
		cur += d
		conc = max(conc, cur)
	}
	return tokens, conc
}

// exactPeakConcurrency is max_concurrent_requests without the buckets:
// the most of the same requests (successful, measured, busy from start to
// start + latency) in flight at one instant, by a sweep over their start
// and end events (an end sorts before a start at the same nanosecond).
// vLLM's bucket rule counts two requests that touch one second as
// concurrent even when one ended before the other began, so it
// over-counts (vllm issue #56653); this one does not.
func exactPeakConcurrency(r *loadtest.Run) int {
	var events []int64
	for i := range r.Records {
		rec := &r.Records[i]
		if rec.Warmup || !rec.Success() {
			continue
		}
		events = append(events, rec.Start<<1|1, (rec.Start+rec.E2EL)<<1)
	}
	peak, _ := Concurrency(events, 0)
	return peak
}
