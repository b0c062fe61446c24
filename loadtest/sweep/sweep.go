package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// Point kinds of a sweep.
const (
	PointSync   = "synchronous"    // one request at a time
	PointMax    = "max-throughput" // everything at once
	PointRate   = "rate"           // open loop at Rate
	PointRefine = "refine"         // bisection between a good and a bad rate
	// PointConfirm is the listed rate after the first failing one, run to
	// see the curve bend: one failure may be noise.
	PointConfirm = "confirm"
	// PointStepDown is a rate below a failing first rate, toward the
	// synchronous baseline.
	PointStepDown = "step-down"
)

// Point is one run of a sweep.
type Point struct {
	Kind    string
	Rate    float64 // offered req/s; 0 for synchronous, +Inf for max-throughput
	Report  *summary.Report
	Verdict string
}

// Good reports whether the point's SLO attainment met the target percentage.
func (p *Point) Good(target float64) bool { return p.Report.GoodputPercent >= target }

// SweepConfig drives a sweep; Run executes one point.
type SweepConfig struct {
	// Rates, if set, are swept instead of the automatic ones.
	Rates []float64
	// Steps is the number of rates between the synchronous and the
	// maximum throughput (default 6).
	Steps int
	// Refine is the number of bisection steps around the knee.
	Refine int
	// KneeGoodput is the percentage of requests that must be good.
	KneeGoodput float64
	// Extend is how many times to go 25 % past the highest rate when all
	// passed (default 4).
	Extend int
	// StepDown is how many rates below a failing first rate are tried,
	// each half way toward the synchronous throughput (or 0) (default 3;
	// negative: none).
	StepDown int
	Run      func(ctx context.Context, kind string, rate float64) (*Point, error)
	// Planned, if set, is told the open-loop rates before the first of
	// them runs (the caller announces how long they will take).
	Planned func(rates []float64)
}

// Sweep is the outcome: every point in the order run, and the knee.
type Sweep struct {
	Points   []*Point
	Knee     *Point // nil if no open-loop rate met the target, or none failed
	FirstBad *Point // the lowest rate above the knee that failed, if any
	// Above is the highest rate tested when none failed: the curve never
	// bent, so the knee is above it (a lower bound, never the knee).
	Above *Point
	// Rebound is a rate above FirstBad that passed again (the confirming
	// run): goodput is not monotone in the rate. The knee stays below the
	// first failure.
	Rebound *Point
	// Interrupted: the sweep stopped before its end (a point could not
	// run, or the context ended); Knee and Above are then unset.
	Interrupted bool
	KneeGoodput float64
	// Prompts says how the points' prompts were kept out of the server's
	// Prefix cache (set by the caller, printed with the table).
	Prompts string
}

// RunSweep runs a synchronous baseline and a max-throughput run, then
// rates evenly spaced between their throughputs (or cfg.Rates), past
// the top if every rate held, and bisects between the last good and the
// first bad rate. The knee is the highest rate below the first failing
// one at which at least KneeGoodput % of requests met every SLO. The
// listed rate after the first failure is run too (PointConfirm): a pass
// there is reported (Rebound). A failing first rate is followed by up to
// StepDown lower ones. No failing rate at all: no knee, only Above.
func RunSweep(ctx context.Context, cfg SweepConfig) (s *Sweep, err error) {
	defer func() {
		if err != nil {
			s.Interrupted = true
		}
	}()
	if cfg.KneeGoodput <= 0 {
		cfg.KneeGoodput = 99
	}
	if cfg.Steps <= 0 {
		cfg.Steps = 6
	}
	if cfg.Extend == 0 {
		cfg.Extend = 4
	}
	if cfg.StepDown == 0 {
		cfg.StepDown = 3
	}
	s = &Sweep{KneeGoodput: cfg.KneeGoodput}
	run := func(kind string, rate float64) (*Point, error) {
		p, err := cfg.Run(ctx, kind, rate)
		if err != nil {
			return nil, err
		}
		p.Kind, p.Rate = kind, rate
		s.Points = append(s.Points, p)
		return p, ctx.Err()
	}
	rates := slices.Clone(cfg.Rates)
	floor := 0.0 // where a step down heads: the synchronous throughput
	if len(rates) == 0 {
		sync, err := run(PointSync, 0)
		if err != nil {
			return s, err
		}
		top, err := run(PointMax, math.Inf(1))
		if err != nil {
			return s, err
		}
		lo, hi := sync.Report.RequestThroughput, top.Report.RequestThroughput
		if lo <= 0 || hi <= 0 {
			return s, errors.New("sweep: the baseline or the max-throughput run completed no request")
		}
		floor = lo
		hi = max(hi, lo*1.1)
		for i := 1; i <= cfg.Steps; i++ {
			rates = append(rates, lo+(hi-lo)*float64(i)/float64(cfg.Steps))
		}
	}
	slices.Sort(rates)
	if cfg.Planned != nil {
		cfg.Planned(slices.Clone(rates))
	}
	var good, bad *Point
	for i, r := range rates {
		p, err := run(PointRate, r)
		if err != nil {
			return s, err
		}
		if p.Good(cfg.KneeGoodput) {
			good = p
			continue
		}
		bad = p
		if good != nil && i+1 < len(rates) {
			q, err := run(PointConfirm, rates[i+1])
			if err != nil {
				return s, err
			}
			if q.Good(cfg.KneeGoodput) {
				s.Rebound = q
			}
		}
		break
	}
	// try runs one more point and moves the bracket's end it falls on.
	try := func(kind string, rate float64) error {
		p, err := run(kind, rate)
		if err != nil {
			return err
		}
		if p.Good(cfg.KneeGoodput) {
			good = p
		} else {
			bad = p
		}
		return nil
	}
	for i := 0; bad == nil && good != nil && i < cfg.Extend && len(cfg.Rates) == 0; i++ {
		if err := try(PointRate, good.Rate*1.25); err != nil {
			return s, err
		}
	}
	// A first rate that fails says little of the rates below it; a point
	// where nothing succeeded is a broken server, not a slow one.
	for i := 0; good == nil && bad != nil && bad.Report.Completed > 0 && i < cfg.StepDown; i++ {
		if err := try(PointStepDown, floor+(bad.Rate-floor)/2); err != nil {
			return s, err
		}
	}
	for i := 0; i < cfg.Refine && good != nil && bad != nil; i++ {
		if err := try(PointRefine, (good.Rate+bad.Rate)/2); err != nil {
			return s, err
		}
	}
	if bad == nil {
		s.Above = good
		return s, nil
	}
	s.Knee, s.FirstBad = good, bad
	return s, nil
}

// OpenLoop reports whether p was run at a fixed offered rate.
func (p *Point) OpenLoop() bool { return p.Kind != PointSync && p.Kind != PointMax }

// Tail is the latency percentile the table and the curve show: p99 if
// the runs report it, else the highest percentile they report (see
// Stats.Tail). The knee sentence always quotes p99, computed whatever
// the percentiles asked for.
func (s *Sweep) Tail() float64 {
	for _, p := range s.Points {
		if p.Report != nil {
			return p.Report.TTFT.Tail()
		}
	}
	return 99
}

// Frontier returns the open-loop points on the throughput–latency Pareto
// frontier (no other point has both more output throughput and a lower
// TTFT at the Tail percentile), by throughput.
func (s *Sweep) Frontier() []*Point {
	tail := s.Tail()
	var pts []*Point
	for _, p := range s.Points {
		if p.Report.Completed > 0 {
			pts = append(pts, p)
		}
	}
	slices.SortFunc(pts, func(a, b *Point) int {
		return stats.CmpFloat(a.Report.OutputThroughput, b.Report.OutputThroughput)
	})
	var out []*Point
	for i, p := range pts {
		dominated := false
		for _, q := range pts[i+1:] {
			if q.Report.OutputThroughput >= p.Report.OutputThroughput && q.Report.TTFT.Value(tail) <= p.Report.TTFT.Value(tail) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, p)
		}
	}
	return out
}

// KneeSummary is the knee as one sentence: "X req/s achieved (R
// offered), Y output tok/s at p99 TTFT ≤ Z ms": the rate the server
// served with the token throughput of the same requests, not the
// schedule's rate beside a measured throughput. A sweep that never failed
// says the knee is above its top rate.
func (s *Sweep) KneeSummary() string {
	if s.Above != nil {
		return fmt.Sprintf("knee above %.2f req/s (lower bound): every tested rate kept %g%% of requests within the SLOs; extend --rates",
			s.Above.Rate, s.KneeGoodput)
	}
	if s.Knee == nil {
		return fmt.Sprintf("no rate kept %g%% of requests within the SLOs", s.KneeGoodput)
	}
	r := s.Knee.Report
	return fmt.Sprintf("%.2f req/s achieved (%.2f offered), %.0f output tok/s at p99 TTFT ≤ %.0f ms, p99 TPOT ≤ %.1f ms (%.2f%% of requests good)",
		r.RequestThroughput, s.Knee.Rate, r.OutputThroughput, r.TTFT.Value(99), r.TPOT.Value(99), r.GoodputPercent)
}

// Monotonicity is a sentence saying goodput rose again past the first
// failing rate; "" if not seen.
func (s *Sweep) Monotonicity() string {
	if s.Rebound == nil || s.FirstBad == nil {
		return ""
	}
	return fmt.Sprintf("SLO attainment is not monotone in the rate: %.2f req/s failed (%.2f%% good) but %.2f req/s passed (%.2f%%); the knee is taken below the first failure; rerun to confirm",
		s.FirstBad.Rate, s.FirstBad.Report.GoodputPercent, s.Rebound.Rate, s.Rebound.Report.GoodputPercent)
}

// KneeRate is the rate the knee's run achieved (completed req/s), what a
// capacity plan may count on per replica; 0 without a knee.
func (s *Sweep) KneeRate() float64 {
	if s.Knee == nil {
		return 0
	}
	return s.Knee.Report.RequestThroughput
}
