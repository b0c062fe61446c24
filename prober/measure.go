package prober

import "time"

// arrival is one chunk that carried generated output: when it arrived
// (since the request was sent) and how many tokens it held.
type arrival struct {
	at     time.Duration
	tokens int
}

// interTokenLatencies follows vllm bench serve: one gap per content chunk
// after the first. When a chunk is known to hold k > 1 tokens (cumulative
// usage per chunk, e.g. speculative decoding or --stream-interval), its gap
// is split into k equal per-token gaps so ITL stays per token. Extra tokens
// in the first chunk arrive with the first token and add no gap.
func interTokenLatencies(arrivals []arrival) []time.Duration {
	if len(arrivals) < 2 {
		return nil
	}
	n := 0
	for _, a := range arrivals[1:] {
		n = min(n+max(a.tokens, 1), MaxITLGaps)
	}
	out := make([]time.Duration, 0, n)
	prev := arrivals[0].at
	for _, a := range arrivals[1:] {
		k := max(a.tokens, 1)
		gap := (a.at - prev) / time.Duration(k)
		// The token count comes from the server: a bogus usage jump must
		// not make the prober allocate without bound.
		for range min(k, MaxITLGaps-len(out)) {
			out = append(out, gap)
		}
		prev = a.at
	}
	return out
}

// timePerOutputToken is (E2EL − TTFT) / (n − 1), and 0 when n ≤ 1, as in
// vllm bench serve.
func timePerOutputToken(e2el, ttft time.Duration, outputTokens int) time.Duration {
	if outputTokens <= 1 {
		return 0
	}
	return (e2el - ttft) / time.Duration(outputTokens-1)
}
