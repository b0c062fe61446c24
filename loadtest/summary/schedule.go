package summary

import (
	"fmt"
	"math"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// Latency bases: where TTFT and E2EL count from.
const (
	BasisSend     = "send"     // when the request left (vllm bench's definition)
	BasisSchedule = "schedule" // when the schedule planned it: client queueing included
)

// basisLagMs is the send lag (p99, ms) past which the generator counts as
// having held requests back: above a busy machine's timer noise.
const basisLagMs = 1.0

// Schedule is the report's latency counted from the planned send time.
// Open loop only: a request that waits in the client (for a
// --max-concurrency slot, or for a late generator) waits for the user
// too, and the send-based figures hide it (coordinated omission).
type Schedule struct {
	// Basis is the figures goodput, --fail-on, the sweep's knee and the
	// verdict use: BasisSchedule whenever requests waited in the client.
	Basis       string
	BasisReason string
	// SlotWaited counts measured requests that found no free
	// --max-concurrency slot at their planned time.
	SlotWaited int
	// SchedTTFT and SchedE2EL are TTFT and E2EL from the planned send
	// time (ms); GenLag is the send lag of requests that did not wait for
	// a slot: the generator's own lateness.
	SchedTTFT, SchedE2EL, GenLag stats.Stats
	// PlannedSpan and SendSpan are the first to last planned and actual
	// send times of the measured requests: a generator that held the rate
	// back sent over a longer span than planned.
	PlannedSpan, SendSpan time.Duration

	GoodSend, GoodSchedule                     int
	GoodputRateSend, GoodputRateSchedule       float64
	GoodputPercentSend, GoodputPercentSchedule float64
}

// BasisTTFT and BasisE2EL are the TTFT and E2EL of the report's basis.
func (rep *Report) BasisTTFT() stats.Stats {
	if rep.Basis == BasisSchedule {
		return rep.SchedTTFT
	}
	return rep.TTFT
}

func (rep *Report) BasisE2EL() stats.Stats {
	if rep.Basis == BasisSchedule {
		return rep.SchedE2EL
	}
	return rep.E2EL
}

// scheduleAcc gathers the Schedule of a run's measured requests.
type scheduleAcc struct {
	ttft, e2el, genLag      []float64
	goodSend, goodSched     int
	judgedSend, judgedSched int // requests goodput counts: done, failed, cut off past an SLO
	slotWaited, measured    int
	spans                   [4]int64 // first and last planned, first and last send
}

func (a *scheduleAcc) Add(rec *loadtest.Record, slo SLO, open bool) {
	if a.measured == 0 {
		a.spans = [4]int64{rec.Planned, rec.Planned, rec.Start, rec.Start}
	}
	a.measured++
	a.spans = [4]int64{min(a.spans[0], rec.Planned), max(a.spans[1], rec.Planned), min(a.spans[2], rec.Start), max(a.spans[3], rec.Start)}
	var wait int64
	if open {
		wait = rec.Start - rec.Planned
		if rec.SlotWaited {
			a.slotWaited++
		} else {
			a.genLag = append(a.genLag, Ms(wait))
		}
	}
	switch {
	case rec.Cancelled():
		if Missed(rec, slo, 0) {
			a.judgedSend++
		}
		if Missed(rec, slo, wait) {
			a.judgedSched++
		}
		return
	case !rec.Success():
		a.judgedSend++
		a.judgedSched++
		return
	}
	a.judgedSend++
	a.judgedSched++
	if Good(rec, slo, 0) {
		a.goodSend++
	}
	if Good(rec, slo, wait) {
		a.goodSched++
	}
	if open {
		a.ttft = append(a.ttft, Ms(rec.TTFT+wait))
		a.e2el = append(a.e2el, Ms(rec.E2EL+wait))
	}
}

// finish fills rep's Schedule and its goodput, by the basis it picks.
func (a *scheduleAcc) finish(rep *Report, ps []float64) {
	s := &rep.Schedule
	pct := func(good, n int) float64 {
		if n == 0 {
			return 0
		}
		return 100 * float64(good) / float64(n)
	}
	rate := func(good int) float64 {
		if d := rep.Duration.Seconds(); d > 0 {
			return float64(good) / d
		}
		return 0
	}
	s.SlotWaited = a.slotWaited
	s.PlannedSpan, s.SendSpan = time.Duration(a.spans[1]-a.spans[0]), time.Duration(a.spans[3]-a.spans[2])
	s.GoodSend, s.GoodputRateSend, s.GoodputPercentSend = a.goodSend, rate(a.goodSend), pct(a.goodSend, a.judgedSend)
	s.Basis, s.BasisReason = BasisSend, "closed loop: each user sends when its last request ends; there is no schedule to fall behind"
	if rep.Mode != "closed-loop" {
		s.GoodSchedule, s.GoodputRateSchedule = a.goodSched, rate(a.goodSched)
		s.GoodputPercentSchedule = pct(a.goodSched, a.judgedSched)
		s.SchedTTFT, s.SchedE2EL, s.GenLag = stats.ExactStats(a.ttft, ps), stats.ExactStats(a.e2el, ps), stats.ExactStats(a.genLag, ps)
		switch lag := rep.Lag.Value(99); {
		case math.IsInf(rep.Rate, 1):
			s.BasisReason = "an infinite rate plans every request at once: a burst has no schedule to be late against; latency counts from the send"
		case a.slotWaited > 0:
			s.Basis = BasisSchedule
			s.BasisReason = fmt.Sprintf("%d of %d requests waited for a --max-concurrency slot (send lag p99 %.1f ms): latency counts from the planned send time",
				a.slotWaited, a.measured, lag)
		case lag > basisLagMs:
			s.Basis = BasisSchedule
			s.BasisReason = fmt.Sprintf("the load generator sent requests late (send lag p99 %.1f ms > %g ms): latency counts from the planned send time", lag, basisLagMs)
		default:
			s.BasisReason = fmt.Sprintf("requests left on schedule (send lag p99 %.2f ms ≤ %g ms): latency counts from the send", lag, basisLagMs)
		}
	}
	rep.Good, rep.GoodputRate, rep.GoodputPercent = s.GoodSend, s.GoodputRateSend, s.GoodputPercentSend
	if s.Basis == BasisSchedule {
		rep.Good, rep.GoodputRate, rep.GoodputPercent = s.GoodSchedule, s.GoodputRateSchedule, s.GoodputPercentSchedule
	}
}

// scheduleKeys are the JSON result keys of the schedule-based figures.
func (rep *Report) scheduleKeys() []KV {
	kv := []KV{
		{"llm_prober_cancelled", rep.Cancelled},
		{"llm_prober_latency_basis", rep.Basis},
		{"llm_prober_latency_basis_reason", rep.BasisReason},
		{"llm_prober_goodput_send_percent", rep.GoodputPercentSend},
	}
	if rep.Mode == "closed-loop" {
		return kv
	}
	return append(kv,
		KV{"llm_prober_goodput_schedule_percent", rep.GoodputPercentSchedule},
		KV{"llm_prober_slot_waited_requests", rep.SlotWaited},
		KV{"llm_prober_schedule_ttft_ms", statsMap(rep.SchedTTFT)},
		KV{"llm_prober_schedule_e2el_ms", statsMap(rep.SchedE2EL)})
}
