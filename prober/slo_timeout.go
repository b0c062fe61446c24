package prober

import (
	"slices"
	"time"
)

// timeoutViolations names the latency SLOs a probe that timed out
// necessarily missed: one that waited past an SLO without a first token
// missed TTFT and E2EL, one that timed out while decoding missed E2EL.
// Without this a target whose every probe times out would read as meeting
// its latency SLOs (no successful probe, no violation). TPOT is unknown.
// waited is how long the probe ran; slo holds the thresholds by SLONames
// (0: not set).
func timeoutViolations(reason Reason, waited time.Duration, slo []float64) []string {
	var names []string
	switch reason {
	case ReasonTimeoutConnect, ReasonTimeoutHeaders, ReasonTimeoutFirstToken:
		names = []string{"ttft", "e2el"}
	case ReasonTimeoutDecode:
		names = []string{"e2el"}
	default:
		return nil
	}
	var missed []string
	for _, name := range names {
		i := slices.Index(SLONames, name)
		if s := slo[i]; s > 0 && waited.Seconds() > s {
			missed = append(missed, name)
		}
	}
	return missed
}
