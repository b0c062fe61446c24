package sweep

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// fakeRun is a server whose goodput at each rate is goodAt(rate) (%), of
// n requests; the baseline and max-throughput runs achieve sync and top
// req/s.
func fakeRun(n int, sync, top float64, goodAt func(rate float64) float64) func(context.Context, string, float64) (*Point, error) {
	return func(_ context.Context, kind string, rate float64) (*Point, error) {
		r := &summary.Report{Completed: n, GoodputPercent: 100, RequestThroughput: rate}
		switch kind {
		case PointSync:
			r.RequestThroughput = sync
		case PointMax:
			r.RequestThroughput = top
		default:
			r.GoodputPercent = goodAt(rate)
		}
		return &Point{Report: r}, nil
	}
}

func kinds(s *Sweep) string {
	var b strings.Builder
	for _, p := range s.Points {
		b.WriteString(p.Kind + " ")
	}
	return b.String()
}

// A sweep in which every rate held never saw the knee: it reports its top
// rate as a lower bound, never as the knee (issue 31 item 1).
func TestSweepBelowSaturationIsALowerBound(t *testing.T) {
	all := func(float64) float64 { return 100 }
	s, err := RunSweep(t.Context(), SweepConfig{Rates: []float64{10, 20}, Refine: 3, Run: fakeRun(100, 0, 0, all)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Knee != nil || s.KneeRate() != 0 || s.Above == nil || s.Above.Rate != 20 {
		t.Fatalf("knee %+v, above %+v; want no knee, above 20", s.Knee, s.Above)
	}
	if got := s.KneeSummary(); !strings.HasPrefix(got, "knee above 20.00 req/s (lower bound)") || !strings.Contains(got, "extend --rates") {
		t.Errorf("summary %q", got)
	}
	if _, hi, ok := s.KneeCI(); !ok || !math.IsInf(hi, 1) || !strings.Contains(s.KneeCIText(), "no upper bound") {
		t.Errorf("interval hi %v %q", hi, s.KneeCIText())
	}
	// The automatic sweep extends past its top four times, then says the same.
	s, err = RunSweep(t.Context(), SweepConfig{Steps: 2, Run: fakeRun(100, 1, 10, all)})
	if err != nil || s.Knee != nil || s.Above == nil || len(s.Points) != 2+2+4 {
		t.Errorf("automatic: %v, knee %+v, above %+v, points %s", err, s.Knee, s.Above, kinds(s))
	}
}

// A first open-loop rate that fails is followed by lower ones, half way
// toward the synchronous throughput each, then bisection around the knee.
func TestSweepStepsDownFromAFailingFirstRate(t *testing.T) {
	cliff := func(r float64) float64 {
		if r <= 12 {
			return 100
		}
		return 50
	}
	s, err := RunSweep(t.Context(), SweepConfig{Rates: []float64{40, 80}, Refine: 2, Run: fakeRun(100, 0, 0, cliff)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Knee == nil || s.Knee.Rate != 10 || s.FirstBad == nil || s.FirstBad.Rate != 12.5 {
		t.Fatalf("knee %+v first bad %+v; points %s", s.Knee, s.FirstBad, kinds(s))
	}
	if got := kinds(s); got != "rate step-down step-down refine refine " {
		t.Errorf("points %s: want 40, then 20 and 10 stepping down, then two refinements", got)
	}
	// Automatic: steps head for the baseline's 8 req/s, not for 0.
	s, err = RunSweep(t.Context(), SweepConfig{Steps: 2, StepDown: 1, Run: fakeRun(100, 8, 100, cliff)})
	if err != nil || len(s.Points) != 4 || s.Points[3].Kind != PointStepDown || s.Points[3].Rate != (8+54)/2.0 {
		t.Errorf("automatic: %v knee %+v points %s", err, s.Knee, kinds(s))
	}
	// Nothing completed: a broken server, not a slow one; no step down.
	dead := func(_ context.Context, kind string, rate float64) (*Point, error) {
		return &Point{Report: &summary.Report{Failed: 10}}, nil
	}
	s, _ = RunSweep(t.Context(), SweepConfig{Rates: []float64{40, 80}, Run: dead})
	if len(s.Points) != 1 || s.Knee != nil || s.Above != nil {
		t.Errorf("dead server: points %s", kinds(s))
	}
}

// A rate that passes past the first failing one is reported, and the
// interval reaches past it.
func TestSweepReportsANonMonotoneCurve(t *testing.T) {
	bumpy := func(r float64) float64 {
		if r == 20 || r >= 40 {
			return 50
		}
		return 100
	}
	s, err := RunSweep(t.Context(), SweepConfig{Rates: []float64{10, 20, 30, 40}, Run: fakeRun(1000, 0, 0, bumpy)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Knee == nil || s.Knee.Rate != 10 || s.Rebound == nil || s.Rebound.Rate != 30 {
		t.Fatalf("knee %+v rebound %+v points %s", s.Knee, s.Rebound, kinds(s))
	}
	if m := s.Monotonicity(); !strings.Contains(m, "not monotone") || !strings.Contains(m, "20.00 req/s failed") {
		t.Errorf("monotonicity %q", m)
	}
	if lo, hi, _ := s.KneeCI(); lo != 10 || !math.IsInf(hi, 1) {
		t.Errorf("interval %v–%v: want 10 to unbounded (nothing failed above the rebound)", lo, hi)
	}
	// A failure that rests on a few requests bounds nothing: 39 of 40
	// good resamples to 40 of 40 a third of the time.
	thin := &Sweep{KneeGoodput: 99, Points: []*Point{
		{Kind: PointRate, Rate: 5, Report: &summary.Report{Completed: 40, GoodputPercent: 100}},
		{Kind: PointRate, Rate: 10, Report: &summary.Report{Completed: 40, GoodputPercent: 97.5}}}}
	thin.Knee, thin.FirstBad = thin.Points[0], thin.Points[1]
	if lo, hi, _ := thin.KneeCI(); lo != 5 || !math.IsInf(hi, 1) || !strings.Contains(thin.KneeCIText(), "too few requests to rule out a pass") {
		t.Errorf("thin failure: %v–%v %q", lo, hi, thin.KneeCIText())
	}
	// A monotone curve says nothing.
	s, _ = RunSweep(t.Context(), SweepConfig{Rates: []float64{10, 20, 30}, Run: fakeRun(1000, 0, 0, func(r float64) float64 { return 110 - r })})
	if s.Monotonicity() != "" || s.Rebound != nil || len(s.Points) != 3 || s.Points[2].Kind != PointConfirm {
		t.Errorf("monotone: %q, points %s", s.Monotonicity(), kinds(s))
	}
}

// The knee's interval covers the rate where the true goodput crosses the
// target at least as often as it claims, simulated: requests are good
// with a probability that falls smoothly with the rate, the sweep runs
// as bench runs it, and the interval is the bracket widened by sampling
// error. It is never of zero width (the old interval resampled within
// the tested rates and was 0 wide for a clear knee, covering ~never).
func TestKneeCICoversTheTrueKnee(t *testing.T) {
	const target = 99.0
	// good(r) = 1 − 0.5·logistic((r − 40)/3): 99 % at r* = 40 + 3·ln(0.02/0.98).
	good := func(r float64) float64 { return 1 - 0.5/(1+math.Exp(-(r-40)/3)) }
	truth := 40 + 3*math.Log(0.02/0.98)
	rng := rand.New(rand.NewPCG(7, 31))
	const sims, n = 200, 2000
	covered := 0
	for range sims {
		run := func(_ context.Context, _ string, rate float64) (*Point, error) {
			g := stats.Binomial(rng, n, good(rate))
			return &Point{Report: &summary.Report{Completed: n, GoodputPercent: 100 * float64(g) / n}}, nil
		}
		// A random grid offset: the truth falls anywhere in a bracket.
		off := 10 * rng.Float64()
		s, err := RunSweep(t.Context(), SweepConfig{Rates: []float64{off + 10, off + 20, off + 30, off + 40, off + 50}, Refine: 2, KneeGoodput: target, Run: run})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi, ok := s.KneeCI()
		if !ok || !(hi > lo) {
			t.Fatalf("interval %v–%v (ok %v): zero width", lo, hi, ok)
		}
		if lo <= truth && truth <= hi {
			covered++
		}
	}
	c := float64(covered) / sims
	t.Logf("coverage of the true knee: %.1f%% of %d sweeps", 100*c, sims)
	if c < stats.CILevel-0.03 {
		t.Errorf("the %.0f%% interval covered the true knee %.2f in %.1f%% of %d sweeps", 100*stats.CILevel, truth, 100*c, sims)
	}
}

// The interval of docs/bench.md's example sweep, from its points' counts
// and goodput: the bracket 8.40–8.99 widened to 7.23–9.58 by the two
// points within a few requests of the target.
func TestKneeCIDocExample(t *testing.T) {
	s := &Sweep{KneeGoodput: 99}
	for _, p := range [][2]float64{{4.88, 100}, {7.23, 100}, {8.40, 99.2}, {8.99, 98.8}, {9.58, 91.6}} {
		s.Points = append(s.Points, &Point{Kind: PointRate, Rate: p[0], Report: &summary.Report{Completed: 1000, GoodputPercent: p[1]}})
	}
	s.Knee, s.FirstBad = s.Points[2], s.Points[3]
	want := "Knee rate 95% interval: 7.23–9.58 req/s offered (from the last passing to the first failing rate, widened by each point's sampling error)"
	if got := s.KneeCIText(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
