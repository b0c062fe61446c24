package summary

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// Stage is a slice of a ramp or trace run, by request order: a run whose
// rate changes mixes light and heavy load, and its aggregate hides where
// latency broke. Latency and goodput count on the report's basis.
type Stage struct {
	Requests              int     // measured requests planned in the stage
	First, Last           int64   // their request indexes
	RateFrom, RateTo      float64 // a ramp's nominal rate at the stage's first and last request (0 for a trace)
	PlannedRate, SentRate float64 // requests/s over the stage's planned and actual send span
	Completed, Failed     int
	TTFT, E2EL            stats.Stats
	GoodputPercent        float64 // good / judged requests (when --goodput is set)
}

// stageCount is how many stages n measured requests split into: tenths,
// fewer when a tenth would hold under 10 requests.
func stageCount(n int) int { return min(10, max(1, n/10)) }

// summarizeStages fills rep.Stages for a ramp or trace run.
func summarizeStages(r *loadtest.Run, rep *Report, ps []float64) {
	o := &r.Opts
	if !o.Shaped() {
		return
	}
	recs := make([]*loadtest.Record, 0, len(r.Records))
	for i := range r.Records {
		if !r.Records[i].Warmup {
			recs = append(recs, &r.Records[i])
		}
	}
	if len(recs) == 0 {
		return
	}
	slices.SortFunc(recs, func(a, b *loadtest.Record) int { return cmp.Compare(a.Index, b.Index) })
	k := stageCount(len(recs))
	sched := rep.Basis == BasisSchedule
	for s := range k {
		part := recs[s*len(recs)/k : (s+1)*len(recs)/k]
		st := Stage{Requests: len(part), First: part[0].Index, Last: part[len(part)-1].Index}
		if o.Ramp != nil {
			w := int64(o.WarmupRequests)
			st.RateFrom, st.RateTo = o.Ramp.RateAt(int(st.First-w), o.NumPrompts), o.Ramp.RateAt(int(st.Last-w), o.NumPrompts)
		}
		var ttft, e2el []float64
		var good, judged int
		p0, p1, s0, s1 := part[0].Planned, part[0].Planned, part[0].Start, part[0].Start
		for _, rec := range part {
			p0, p1, s0, s1 = min(p0, rec.Planned), max(p1, rec.Planned), min(s0, rec.Start), max(s1, rec.Start)
			var wait int64
			if sched {
				wait = rec.Start - rec.Planned
			}
			switch {
			case rec.Cancelled():
				if Missed(rec, rep.SLO, wait) {
					judged++
				}
			case !rec.Success():
				st.Failed++
				judged++
			default:
				st.Completed++
				judged++
				if Good(rec, rep.SLO, wait) {
					good++
				}
				ttft = append(ttft, Ms(rec.TTFT+wait))
				e2el = append(e2el, Ms(rec.E2EL+wait))
			}
		}
		if n := len(part) - 1; n > 0 {
			st.PlannedRate, st.SentRate = spanRate(n, p1-p0), spanRate(n, s1-s0)
		}
		if judged > 0 {
			st.GoodputPercent = 100 * float64(good) / float64(judged)
		}
		st.TTFT, st.E2EL = stats.ExactStats(ttft, ps), stats.ExactStats(e2el, ps)
		rep.Stages = append(rep.Stages, st)
	}
}

// spanRate is n gaps over span ns: +Inf for a burst (every request at
// the same instant), not 0.
func spanRate(n int, span int64) float64 {
	if span <= 0 {
		return math.Inf(1)
	}
	return float64(n) / (float64(span) / 1e9)
}

// RateText is a stage's rate for people: "burst" when every request was
// at one instant.
func RateText(r float64) string {
	if math.IsInf(r, 1) {
		return "burst (all at once)"
	}
	return fmt.Sprintf("%.1f req/s", r)
}

// jsonRate is r for JSON, which has no infinity: "inf", as vllm bench
// writes an infinite request_rate.
func jsonRate(r float64) any {
	if math.IsInf(r, 1) {
		return "inf"
	}
	return r
}

// FirstStageBelow is the first stage whose goodput is below pct, -1 if
// none (or no SLO is set).
func (rep *Report) FirstStageBelow(pct float64) int {
	if !rep.SLO.Set() {
		return -1
	}
	for i, s := range rep.Stages {
		if s.Completed+s.Failed > 0 && s.GoodputPercent < pct {
			return i
		}
	}
	return -1
}

// stageKeys are the JSON keys of a ramp or trace run.
func (rep *Report) stageKeys() []KV {
	if rep.Shape == "" {
		return nil
	}
	stages := make([]map[string]any, 0, len(rep.Stages))
	for _, s := range rep.Stages {
		m := map[string]any{"first_index": s.First, "last_index": s.Last, "requests": s.Requests,
			"planned_rate": jsonRate(s.PlannedRate), "sent_rate": jsonRate(s.SentRate), "completed": s.Completed, "failed": s.Failed,
			"ttft_ms": statsMap(s.TTFT), "e2el_ms": statsMap(s.E2EL)}
		if s.RateTo > 0 {
			m["ramp_rate_from"], m["ramp_rate_to"] = s.RateFrom, s.RateTo
		}
		if rep.SLO.Set() {
			m["goodput_percent"] = s.GoodputPercent
		}
		stages = append(stages, m)
	}
	return []KV{{"llm_prober_traffic_shape", rep.Shape}, {"llm_prober_stages", stages}}
}

// shapeRate is a ramp or trace run's mean planned rate (requests/s over
// the measured requests' planned span): what the verdict compares send
// lag against.
func shapeRate(first, last int64, n int) float64 {
	if n < 2 || last <= first {
		return 0
	}
	return float64(n-1) / (float64(last-first) / 1e9)
}

// shapeCaveat warns that a ramp or trace run's verdict covers loads that
// changed, and names the stage where SLO attainment first fell.
func (rep *Report) shapeCaveat(add func(string, ...any)) {
	if rep.Shape == "" {
		return
	}
	add("caveat: %s: the load changed over the run; the verdict judges it whole, the per-stage table shows where latency broke", rep.Shape)
	if i := rep.FirstStageBelow(99); i >= 0 {
		add("SLO attainment first fell below 99%% in stage %d of %d (planned %s)", i+1, len(rep.Stages), RateText(rep.Stages[i].PlannedRate))
	}
}
