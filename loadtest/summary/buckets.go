package summary

import (
	"math/bits"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// InputBucket is SLO attainment over the measured requests whose prompt
// length falls in [Lo, Hi] tokens (powers of two: 1, 2–3, 4–7, …,
// 1024–2047; Lo = Hi = 0 for requests of unknown length), so a mixed
// workload shows which prompt lengths miss their objectives.
type InputBucket struct {
	Lo, Hi int
	// Requests counts the requests attainment judges (done, failed, or
	// cut off past an SLO); Good those that met every SLO.
	Requests, Good int
	Percent        float64 // SLO attainment, %
	// TTFT of the bucket's successful requests on the report's basis, ms.
	TTFT stats.Stats
}

// bucketOf is the index of a prompt of n tokens: bits.Len(n), so 0 holds
// unknown lengths and k ≥ 1 holds [2^(k-1), 2^k - 1].
func bucketOf(n int) int { return bits.Len(uint(max(n, 0))) }

// summarizeSLOs fills rep.MissedBy and rep.InputBuckets from r's
// measured requests, on the report's basis, so they count the requests
// the headline attainment counts.
func summarizeSLOs(r *loadtest.Run, rep *Report, ps []float64) {
	if !rep.SLO.Set() {
		return
	}
	type acc struct {
		n, good int
		ttft    []float64
	}
	var rows [bits.UintSize + 1]acc
	rep.MissedBy = map[string]int{}
	sched := rep.Basis == BasisSchedule
	for i := range r.Records {
		rec := &r.Records[i]
		if rec.Warmup {
			continue
		}
		var wait int64
		if sched {
			wait = rec.Start - rec.Planned
		}
		a := &rows[bucketOf(InputTokens(rec))]
		switch {
		case rec.Cancelled():
			if Missed(rec, rep.SLO, wait) {
				a.n++
			}
		case !rec.Success():
			a.n++
		default:
			a.n++
			a.ttft = append(a.ttft, Ms(rec.TTFT+wait))
			m := Misses(rec, rep.SLO, wait)
			if m&8 != 0 && m&2 == 0 && rep.SLO.TPOT > 0 {
				rep.StalledTPOTMet++
			}
			for k, name := range SLONames {
				if m&(1<<k) != 0 {
					rep.MissedBy[name]++
				}
			}
			if Good(rec, rep.SLO, wait) {
				a.good++
			}
		}
	}
	for k := range rows {
		a := &rows[k]
		if a.n == 0 {
			continue
		}
		b := InputBucket{Requests: a.n, Good: a.good, Percent: 100 * float64(a.good) / float64(a.n), TTFT: stats.ExactStats(a.ttft, ps)}
		if k > 0 {
			b.Lo, b.Hi = 1<<(k-1), 1<<k-1
		}
		rep.InputBuckets = append(rep.InputBuckets, b)
	}
}

// sloKeys are the JSON keys of the per-objective misses and the
// attainment by prompt length.
func (rep *Report) sloKeys() []KV {
	if !rep.SLO.Set() {
		return nil
	}
	rows := make([]map[string]any, 0, len(rep.InputBuckets))
	for _, b := range rep.InputBuckets {
		rows = append(rows, map[string]any{"input_tokens_min": b.Lo, "input_tokens_max": b.Hi, "requests": b.Requests,
			"good_requests": b.Good, "slo_attainment_percent": b.Percent, "ttft_ms": statsMap(b.TTFT)})
	}
	missed := map[string]int{}
	for _, n := range SLONames {
		missed[n] = rep.MissedBy[n]
	}
	return []KV{
		{"llm_prober_slo_attainment_percent", rep.GoodputPercent},
		{"llm_prober_slo_missed_by", missed},
		{"llm_prober_slo_attainment_by_input_tokens", rows},
	}
}
