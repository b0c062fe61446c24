package summary

import (
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
)

// Peak output tok/s and max concurrent requests as vllm bench defines
// them: one-second buckets from the first measured start (the warm-up
// before it does not shift them), a request busy until start + latency
// (the client's teardown after its last byte is not concurrency).
func TestVLLMPeaks(t *testing.T) {
	ms := func(v int) int64 { return int64(v) * int64(time.Millisecond) }
	run := &loadtest.Run{Opts: loadtest.Options{Rate: 10}, Records: []loadtest.Record{
		{Index: 0, Warmup: true, Planned: 0, Start: 0, End: ms(500), E2EL: ms(500), TTFT: ms(100), OutputTokens: 2},
		// Busy 700–900 ms, the client done with it at 2,000 ms.
		{Index: 1, Planned: ms(700), Start: ms(700), End: ms(2000), TTFT: ms(50), E2EL: ms(200), OutputTokens: 4},
		{Index: 2, Planned: ms(1800), Start: ms(1800), End: ms(1900), TTFT: ms(50), E2EL: ms(100), OutputTokens: 1},
	}}
	run.TokensPerMs = make([]uint16, 2000)
	// Request 1's tokens at 750, 1100, 1650 and 1690 ms: all in the first
	// second from its start (700 ms); from the run's start, 1 and 3.
	for _, at := range []int{750, 1100, 1650, 1690, 1850} {
		run.TokensPerMs[at]++
	}
	rep := Summarize(run, SLO{}, nil)
	if rep.PeakOutputThroughput != 4 {
		t.Errorf("peak output tokens/s %g, want 4 (buckets from the first measured start)", rep.PeakOutputThroughput)
	}
	if rep.PeakConcurrency != 1 || rep.PeakInFlight != 1 {
		t.Errorf("max concurrent requests %d, peak in flight %d; want 1 and 1 (teardown is not concurrency)",
			rep.PeakConcurrency, rep.PeakInFlight)
	}
	// vllm counts a request in every second it touches: two requests in
	// the same second, never at once, are 2.
	run.Records[2].Start, run.Records[2].Planned, run.Records[2].End = ms(1000), ms(1000), ms(1100)
	if rep := Summarize(run, SLO{}, nil); rep.PeakConcurrency != 2 || rep.PeakInFlight != 1 || rep.ExactPeakConcurrency != 1 {
		t.Errorf("same second: max concurrent %d (want 2), in flight %d (want 1), exact %d (want 1)", rep.PeakConcurrency, rep.PeakInFlight,
			rep.ExactPeakConcurrency)
	}
	// The exact peak counts the instant: request 2 starting as request 1
	// ends (900 ms) is not concurrent; starting at 899 ms it is.
	run.Records[2].Start, run.Records[2].Planned, run.Records[2].End = ms(900), ms(900), ms(1000)
	if rep := Summarize(run, SLO{}, nil); rep.ExactPeakConcurrency != 1 {
		t.Errorf("back to back: exact peak %d, want 1", rep.ExactPeakConcurrency)
	}
	run.Records[2].Start, run.Records[2].Planned = ms(899), ms(899)
	if rep := Summarize(run, SLO{}, nil); rep.ExactPeakConcurrency != 2 {
		t.Errorf("overlapping by 1 ms: exact peak %d, want 2", rep.ExactPeakConcurrency)
	}
}
