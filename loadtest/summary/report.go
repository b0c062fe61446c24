package summary

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/prober"
)

// DefaultPercentiles are reported unless others are asked for.
var DefaultPercentiles = []float64{50, 90, 95, 99, 99.9}

// Report is the aggregate of a run's measured requests, with vllm bench
// serve's definitions.
type Report struct {
	Mode       string // "open-loop" or "closed-loop"
	Rate       float64
	Burstiness float64
	// MaxConcurrency is the open-loop cap, or the closed loop's users.
	MaxConcurrency int
	Workload       string

	Completed, Failed int
	FailedBy          map[prober.Reason]int
	Warmup            int
	Duration          time.Duration

	TotalInput, TotalOutput int // planned prompt tokens (vllm bench), output tokens
	ServerPromptTokens      int // usage.prompt_tokens, where reported
	CachedTokens            int

	RequestThroughput    float64 // completed req/s
	OutputThroughput     float64 // tok/s
	TotalTokenThroughput float64 // (input + output) tok/s
	PeakOutputThroughput float64 // max output tokens received in one second (vllm bench's buckets)
	PeakConcurrency      int     // most successful requests active in one second (vllm bench's)
	ExactPeakConcurrency int     // most of those in flight at one instant (an event sweep)
	PeakInFlight         int     // most requests in flight at once, exact
	MeanConcurrency      float64 // time-averaged requests in flight

	SLO         SLO
	Good        int
	GoodputRate float64 // goodput: good req/s
	// GoodputPercent is SLO attainment: good / judged requests, % (the
	// field keeps its old name; the share is not goodput, a rate).
	GoodputPercent float64
	// MissedBy counts the successful requests that missed each objective
	// (SLONames; a request may miss several), on the report's basis;
	// InputBuckets is SLO attainment by prompt length (buckets.go).
	MissedBy     map[string]int
	InputBuckets []InputBucket

	TTFT, TPOT, ITL, E2EL stats.Stats
	// MaxITL is each successful request's worst gap between content
	// chunks (requests with two or more chunks), ms.
	MaxITL stats.Stats
	// LongestGap is the longest of those gaps, ms; StalledTPOTMet counts
	// the requests that missed max_itl while meeting the TPOT objective.
	LongestGap     float64
	StalledTPOTMet int
	// Lag is how late requests were sent against the schedule (open loop:
	// timer and --max-concurrency waits), in ms.
	Lag stats.Stats

	// CutShort counts successful requests whose output the server ended
	// before --output-tokens although ignore_eos was set (a context limit
	// truncated them): not clean successes, never good.
	CutShort int
	// Cancelled counts measured requests the run cut off (an interrupt,
	// --duration's end): not failures; against goodput only when they
	// had already missed an SLO.
	Cancelled int
	// Shape names a ramp or trace run's schedule ("" at a constant rate,
	// whose Rate is then the mean planned rate); Stages split such a run
	// by request order (stages.go).
	Shape  string
	Stages []Stage
	// Turns are a multi-turn run's figures by turn index (turns.go).
	Turns []TurnStats
	// Latency from the schedule (open loop, schedule.go); Good,
	// GoodputRate and GoodputPercent are those of Basis.
	Schedule
}

// Summarize computes the report of r's measured requests.
func Summarize(r *loadtest.Run, slo SLO, ps []float64) *Report {
	if len(ps) == 0 {
		ps = DefaultPercentiles
	}
	o := &r.Opts
	slo.pinned = o.IgnoreEOS
	rep := &Report{Mode: "open-loop", Rate: o.Rate, Burstiness: o.Burstiness, MaxConcurrency: o.MaxConcurrency,
		FailedBy: map[prober.Reason]int{}, SLO: slo}
	if o.Burstiness == 0 {
		rep.Burstiness = 1
	}
	if o.ClosedLoop() {
		// Burstiness stays: vllm bench writes its --burstiness (1.0 by
		// default) whatever the loop, and a result is read by its keys.
		rep.Mode, rep.MaxConcurrency, rep.Rate = "closed-loop", o.Concurrency, 0
	}
	if o.Workload != nil {
		rep.Workload = o.Workload.Describe()
	}
	var ttft, tpot, e2el, maxITL, lag []float64
	var sc scheduleAcc
	first, last := int64(math.MaxInt64), int64(0)
	var events []int64 // +start, -end, for concurrency
	for i := range r.Records {
		rec := &r.Records[i]
		if rec.Warmup {
			rep.Warmup++
			continue
		}
		first, last = min(first, rec.Planned), max(last, rec.End)
		events = append(events, rec.Start<<1|1, rec.BusyUntil()<<1)
		if !o.ClosedLoop() {
			lag = append(lag, Ms(rec.Start-rec.Planned))
		}
		sc.Add(rec, slo, !o.ClosedLoop())
		if rec.Cancelled() {
			rep.Cancelled++
			continue
		}
		if !rec.Success() {
			rep.Failed++
			rep.FailedBy[rec.Reason]++
			continue
		}
		rep.Completed++
		if o.IgnoreEOS && CutShort(rec) {
			rep.CutShort++
		}
		rep.TotalInput += int(rec.PlannedPrompt)
		rep.TotalOutput += int(rec.OutputTokens)
		rep.ServerPromptTokens += int(rec.PromptTokens)
		rep.CachedTokens += int(rec.CachedTokens)
		ttft = append(ttft, Ms(rec.TTFT))
		e2el = append(e2el, Ms(rec.E2EL))
		if rec.OutputTokens > 1 {
			tpot = append(tpot, Ms(rec.TPOT))
		}
		if rec.ITLCount > 0 {
			maxITL = append(maxITL, float64(rec.MaxITL())/1e6)
			rep.LongestGap = max(rep.LongestGap, maxITL[len(maxITL)-1])
		}
	}
	if first < last {
		rep.Duration = time.Duration(last - first)
	}
	if d := rep.Duration.Seconds(); d > 0 {
		rep.RequestThroughput = float64(rep.Completed) / d
		rep.OutputThroughput = float64(rep.TotalOutput) / d
		rep.TotalTokenThroughput = float64(rep.TotalInput+rep.TotalOutput) / d
	}
	rep.PeakOutputThroughput, rep.PeakConcurrency = vllmPeaks(r)
	rep.ExactPeakConcurrency = exactPeakConcurrency(r)
	rep.PeakInFlight, rep.MeanConcurrency = Concurrency(events, rep.Duration)
	rep.TTFT = stats.ExactStatsCI(ttft, ps) // in completion order: the interval's blocks are neighbours
	rep.TPOT = stats.ExactStatsCI(tpot, ps)
	rep.E2EL = stats.ExactStatsCI(e2el, ps)
	rep.ITL = r.ITL.Stats(ps)
	rep.MaxITL = stats.ExactStats(maxITL, ps)
	rep.Lag = stats.ExactStats(lag, ps)
	if o.Shaped() && !o.ClosedLoop() {
		rep.Shape = "trace replay"
		if o.Ramp != nil {
			rep.Shape = o.Ramp.Describe()
		}
		rep.Rate = shapeRate(sc.spans[0], sc.spans[1], sc.measured)
	}
	sc.finish(rep, ps)
	summarizeSLOs(r, rep, ps)
	summarizeStages(r, rep, ps)
	summarizeTurns(r, rep, ps)
	return rep
}

func Ms(ns int64) float64 { return float64(ns) / 1e6 }

// Concurrency returns the most requests in flight at once and the
// time-averaged number; events are time<<1 | 1 for a start, time<<1 for
// an end (ends sort first at equal times).
func Concurrency(events []int64, dur time.Duration) (peak int, mean float64) {
	slices.Sort(events)
	cur := 0
	var area float64
	for i, e := range events {
		if i > 0 {
			area += float64(cur) * float64(e>>1-events[i-1]>>1)
		}
		if e&1 == 1 {
			cur++
		} else {
			cur--
		}
		peak = max(peak, cur)
	}
	if dur > 0 {
		mean = area / float64(dur)
	}
	return peak, mean
}

// Reasons returns the failure reasons seen, most frequent first.
func (rep *Report) Reasons() []prober.Reason {
	out := make([]prober.Reason, 0, len(rep.FailedBy))
	for r := range rep.FailedBy {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if rep.FailedBy[out[i]] != rep.FailedBy[out[j]] {
			return rep.FailedBy[out[i]] > rep.FailedBy[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
