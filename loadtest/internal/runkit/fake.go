package runkit

import (
	"github.com/llm-prober/llm-prober/loadtest"
)

// FakeRun is an open-loop run at rate whose i-th request (of n) has a
// TTFT of base+i ms and is sent 1 ms late, every 50th 30 ms late.
func FakeRun(n int, rate, base float64) *loadtest.Run {
	r := &loadtest.Run{Opts: loadtest.Options{Rate: rate, Burstiness: 1, NumPrompts: n}}
	for i := range n {
		planned := int64(float64(i) / rate * 1e9)
		ttft := int64((base + float64(i)) * 1e6)
		lag := int64(1e6)
		if i%50 == 49 {
			lag = 30e6
		}
		r.Records = append(r.Records, loadtest.Record{Index: int64(i), Planned: planned, Start: planned + lag,
			End: planned + ttft + 20e6, TTFT: ttft, TPOT: 5e6, E2EL: ttft + 20e6, PlannedPrompt: 16, OutputTokens: 5})
		r.ITL.Add(5e6)
	}
	return r
}
