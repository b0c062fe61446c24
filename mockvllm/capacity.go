package mockvllm

import "time"

// Step is the mean decode step time with n requests running:
// ITL + PerSequence × n, or ITL + BatchSlowdown × (n−1) without it.
func (o Options) Step(n int) time.Duration {
	n = max(n, 1)
	if o.PerSequence > 0 {
		return o.ITL.Mean + time.Duration(n)*o.PerSequence
	}
	return o.ITL.Mean + time.Duration(n-1)*max(o.BatchSlowdown, 0)
}

// decodeSteps is how many steps follow the first token of an output of
// outputTokens tokens (the first step after prefill carries one token).
func (o Options) decodeSteps(outputTokens int) int {
	per := max(o.TokensPerChunk, 1)
	return (max(outputTokens-1, 0) + per - 1) / per
}

// ServiceTime is the mean time a request spends running when n requests
// run alongside it all along: prefill (PrefillPerToken for every prompt
// token, as if none were cached), then its decode steps.
func (o Options) ServiceTime(n, promptTokens, outputTokens int) time.Duration {
	prefill := o.TTFT.Mean + time.Duration(max(promptTokens, 0))*max(o.PrefillPerToken, 0)
	return prefill + time.Duration(o.decodeSteps(outputTokens))*o.Step(n)
}

// MaxRunningFor is how many requests of this shape can run at once: the
// MaxRunning slots, and the KV blocks their full length needs (0 when
// neither limits).
func (o Options) MaxRunningFor(promptTokens, outputTokens int) int {
	o = o.withDefaults()
	m := max(o.MaxRunning, 0)
	if o.KVBlocks > 0 {
		per := (promptTokens + outputTokens + o.BlockSize - 1) / o.BlockSize
		if kv := o.KVBlocks / max(per, 1); m == 0 || kv < m {
			m = kv
		}
	}
	return m
}

// SaturationRate is the request rate (req/s) past which requests of this
// shape queue without bound, from the settings alone: with a running
// limit M it is M / ServiceTime(M); without one, step time grows with
// every running request and n / ServiceTime(n) tends to
// 1 / (decode steps × per-request slowdown). 0 means no limit.
func (o Options) SaturationRate(promptTokens, outputTokens int) float64 {
	o = o.withDefaults()
	if m := o.MaxRunningFor(promptTokens, outputTokens); m > 0 {
		return float64(m) / o.ServiceTime(m, promptTokens, outputTokens).Seconds()
	}
	per := o.PerSequence
	if per <= 0 {
		per = o.BatchSlowdown
	}
	slope := time.Duration(o.decodeSteps(outputTokens)) * max(per, 0)
	if slope <= 0 {
		return 0
	}
	return 1 / slope.Seconds()
}
