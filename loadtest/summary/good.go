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
	return r.Success() && !(s.pinned && CutShort(r)) && Misses(r, s, wait) == 0
}

// SLONames are the objectives in the order of Misses' bits.
var SLONames = [...]string{"ttft", "tpot", "e2el", "max_itl"}

// Misses has bit i set when a successful request r missed SLONames[i].
func Misses(r *loadtest.Record, s SLO, wait int64) uint8 {
	var m uint8
	if s.HasTTFT() && time.Duration(r.TTFT+wait) > s.TTFTFor(InputTokens(r)) {
		m |= 1
	}
	if s.TPOT > 0 && time.Duration(r.TPOT) > s.TPOT {
		m |= 2
	}
	if s.E2EL > 0 && time.Duration(r.E2EL+wait) > s.E2EL {
		m |= 4
	}
	if s.MaxITL > 0 && r.MaxITL() > s.MaxITL {
		m |= 8
	}
	return m
}

// InputTokens is r's prompt length: the server's count where it reported
// one, else the workload's plan.
func InputTokens(r *loadtest.Record) int {
	if r.PromptTokens > 0 {
		return int(r.PromptTokens)
	}
	return int(r.PlannedPrompt)
}

// Missed reports whether a cancelled request had already missed an SLO
// when it was cut off (counted from wait before its send): it counts
// against SLO attainment. One that could still have met them does not.
func Missed(r *loadtest.Record, s SLO, wait int64) bool {
	age := time.Duration(r.End - r.Start + wait)
	if s.E2EL > 0 && age > s.E2EL {
		return true
	}
	// MaxITL holds the gap still open at the cut-off.
	if s.MaxITL > 0 && r.MaxITL() > s.MaxITL {
		return true
	}
	if s.HasTTFT() {
		limit := s.TTFTFor(InputTokens(r))
		if r.TTFT > 0 {
			return time.Duration(r.TTFT+wait) > limit
		}
		return age > limit
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
