package summary

import (
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
)

// Good reports whether r succeeded and met every SLO that is set, as
// vllm bench serve's goodput (a TPOT of 0 for one-token outputs), with
// TTFT and E2EL counted from wait before the send (0: from the send; the
// send lag: from the schedule).
func Good(r *loadtest.Record, s SLO, wait int64) bool {
	if !r.Success() || (s.pinned && CutShort(r)) {
		return false
	}
	return (s.TTFT <= 0 || time.Duration(r.TTFT+wait) <= s.TTFT) &&
		(s.TPOT <= 0 || time.Duration(r.TPOT) <= s.TPOT) &&
		(s.E2EL <= 0 || time.Duration(r.E2EL+wait) <= s.E2EL)
}

// Missed reports whether a cancelled request had already missed an SLO
// when it was cut off (counted from wait before its send): it counts
// against goodput. One that could still have met them does not count.
func Missed(r *loadtest.Record, s SLO, wait int64) bool {
	age := time.Duration(r.End - r.Start + wait)
	if s.E2EL > 0 && age > s.E2EL {
		return true
	}
	if s.TTFT > 0 {
		if r.TTFT > 0 {
			return time.Duration(r.TTFT+wait) > s.TTFT
		}
		return age > s.TTFT
	}
	return false
}

// CutShort reports whether the server ended r's output before its planned
// length although ignore_eos pinned it (the caller knows it did): a
// context limit truncated it (finish_reason "length" with fewer tokens).
// Only where usage counted the tokens: chunks counted without it may
// carry several tokens each.
func CutShort(r *loadtest.Record) bool {
	return r.Success() && r.PromptTokens > 0 && r.PlannedOutput > 0 && r.OutputTokens < r.PlannedOutput
}
