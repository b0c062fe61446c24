package prober

import "time"

// timePerOutputToken is (E2EL − TTFT) / (n − 1), and 0 when n ≤ 1, as in
// vllm bench serve.
func timePerOutputToken(e2el, ttft time.Duration, outputTokens int) time.Duration {
	if outputTokens <= 1 {
		return 0
	}
	return (e2el - ttft) / time.Duration(outputTokens-1)
}
