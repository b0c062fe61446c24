package summary

import (
	"math"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
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

// max_output_tokens_per_s buckets the exact arrival times (issue 31: from
// millisecond-rounded ones a token 0.3 ms past a bucket's edge fell in the
// bucket before). The origin is the first start, 700.6 ms; a token at
// 1,700.9 ms is 1,000.3 ms after it: the second bucket.
func TestPeakOutputExactArrivals(t *testing.T) {
	us := func(v int64) int64 { return v * int64(time.Microsecond) }
	run := &loadtest.Run{Opts: loadtest.Options{Rate: 10}, Records: []loadtest.Record{
		{Index: 0, Planned: us(700600), Start: us(700600), End: us(1800000), TTFT: us(49400), E2EL: us(1099400), OutputTokens: 4},
	}}
	run.TokensPerMs = make([]uint16, 2000)
	for _, at := range []int64{750000, 1100000, 1650000, 1700900} {
		run.TokensPerMs[at/1000]++
		run.TokenTimes = append(run.TokenTimes, us(at))
	}
	if rep := Summarize(run, SLO{}, nil); rep.PeakOutputThroughput != 3 {
		t.Errorf("peak output tokens/s %g, want 3 (the fourth token is 1,000.3 ms after the origin)", rep.PeakOutputThroughput)
	}
	// A run past loadtest.MaxTokenTimes keeps milliseconds only.
	run.TokenTimes, run.TokenTimesDropped = nil, true
	if rep := Summarize(run, SLO{}, nil); rep.PeakOutputThroughput != 4 {
		t.Errorf("millisecond fallback: %g, want 4", rep.PeakOutputThroughput)
	}
}

// The engine keeps every measured output token's arrival time.
func TestRunKeepsTokenTimes(t *testing.T) {
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	opts := runkit.BaseOptions(tg, client, 8, 5)
	opts.Rate, opts.NumPrompts, opts.WarmupRequests = math.Inf(1), 6, 2
	run, err := loadtest.Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := Summarize(run, SLO{}, nil)
	if len(run.TokenTimes) != rep.TotalOutput || run.TokenTimesDropped || rep.TotalOutput != 30 {
		t.Errorf("%d arrival times for %d measured output tokens (want 30)", len(run.TokenTimes), rep.TotalOutput)
	}
}
