package loadtest

import (
	"math"
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
	// SlotWaited is set when no --max-concurrency slot was free at the
	// planned time: the request queued in the client.
	SlotWaited bool
	// Turn is the request's turn in its session (1: the first), 0
	// outside a multi-turn workload.
	Turn int16
	// MaxGapUs is the request's worst gap between consecutive content
	// chunks (not the wait for the first) in µs, 32 bits to keep the
	// record small; for a request that failed or was cut off while
	// decoding, the gap still open when the client gave up counts too.
	// 0 when no gap was seen. MaxITL reads it.
	MaxGapUs int32
}

// MaxITL is the request's worst gap (MaxGapUs).
func (r *Record) MaxITL() time.Duration { return time.Duration(r.MaxGapUs) * time.Microsecond }

// GapUs is d for Record.MaxGapUs: µs, rounded up so that a gap just above
// an SLO never reads as on it, capped at the field's range.
func GapUs(d time.Duration) int32 {
	return int32(min((d+time.Microsecond-1)/time.Microsecond, math.MaxInt32))
}

// ReasonCancelled marks a request the run itself cut off (an interrupt,
// or still in flight when --duration ended): neither a success nor a
// server failure. It is bench's own, not one of the prober's reasons.
const ReasonCancelled prober.Reason = "cancelled"

// Success reports whether the request completed without failure.
func (r *Record) Success() bool { return r.Reason == prober.ReasonNone }

// Cancelled reports whether the run cut the request off.
func (r *Record) Cancelled() bool { return r.Reason == ReasonCancelled }

// BusyUntil is when the request stopped being in flight: its last byte
// (Start + E2EL) when it succeeded, so that the client's teardown after
// it is not counted as concurrency; when the client gave up otherwise.
func (r *Record) BusyUntil() int64 {
	if r.Success() && r.E2EL > 0 {
		return r.Start + r.E2EL
	}
	return r.End
}

// Lag is how late the request was sent compared with its schedule.
func (r *Record) Lag() time.Duration { return time.Duration(r.Start - r.Planned) }
