package prober

import (
	"slices"
	"time"
)

// timeoutViolations names the latency SLOs a probe that timed out
// necessarily missed: one that waited past an SLO without a first token
// missed TTFT and E2EL; one that timed out while decoding missed E2EL,
// and max_itl when its worst gap, the one still open at the timeout
// included, was past it. Without this a target whose every probe times out
// would read as meeting its latency SLOs (no successful probe, no
// violation). TPOT is unknown. waited is how long the probe ran; slo holds
// the thresholds by SLONames (0: not set).
func timeoutViolations(r *Result, waited time.Duration, slo []float64) []string {
	var names []string
	switch r.Reason {
	case ReasonTimeoutConnect, ReasonTimeoutHeaders, ReasonTimeoutFirstToken:
		names = []string{"ttft", "e2el"}
	case ReasonTimeoutDecode:
		names = []string{"e2el", "max_itl"}
	default:
		return nil
	}
	var missed []string
	for _, name := range names {
		got := waited
		if name == "max_itl" {
			got = max(r.MaxITL, waited-r.LastChunk)
		}
		i := slices.Index(SLONames, name)
		if s := slo[i]; s > 0 && got.Seconds() > s {
			missed = append(missed, name)
		}
	}
	return missed
}
