package loadtest

import (
	"time"

	"github.com/llm-prober/llm-prober/prober"
)

// Record is what a run keeps of one request: 104 bytes, so a
// million of them fit in about 100 MB. Times are nanoseconds since the
// run started; the inter-token gaps go to the run's histogram (and to the
// per-request output file, if any), not here.
type Record struct {
	Index   int64
	Planned int64 // when the schedule wanted it sent
	Start   int64 // when it was handed to the HTTP client
	End     int64 // when the client finished with it (wall clock)

	TTFT, TPOT, E2EL int64 // as prober.Result; 0 when not measured

	PlannedPrompt int32 // prompt tokens the workload asked for
	PromptTokens  int32 // usage.prompt_tokens (0 if not reported)
	CachedTokens  int32
	PlannedOutput int32
	OutputTokens  int32
	ITLCount      int32 // inter-token gaps observed

	Reason prober.Reason // "" on success
	Warmup bool
}

// Success reports whether the request completed without failure.
func (r *Record) Success() bool { return r.Reason == prober.ReasonNone }

// busyUntil is when the request stopped being in flight: its last byte
// (Start + E2EL) when it succeeded, so that the client's teardown after
// it is not counted as concurrency; when the client gave up otherwise.
func (r *Record) busyUntil() int64 {
	if r.Success() && r.E2EL > 0 {
		return r.Start + r.E2EL
	}
	return r.End
}

// Lag is how late the request was sent compared with its schedule.
func (r *Record) Lag() time.Duration { return time.Duration(r.Start - r.Planned) }

// good reports whether r succeeded and met every SLO that is set, as
// vllm bench serve's goodput (a TPOT of 0 for one-token outputs).
func (r *Record) good(s SLO) bool {
	if !r.Success() {
		return false
	}
	return (s.TTFT <= 0 || time.Duration(r.TTFT) <= s.TTFT) &&
		(s.TPOT <= 0 || time.Duration(r.TPOT) <= s.TPOT) &&
		(s.E2EL <= 0 || time.Duration(r.E2EL) <= s.E2EL)
}
