package sweep

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

func TestMinSamplesFor(t *testing.T) {
	for p, want := range map[float64]int{50: 2, 90: 10, 99: 100, 99.9: 1000} {
		if got := stats.MinSamplesFor(p); got != want {
			t.Errorf("p%g: %d, want %d", p, got, want)
		}
	}
}

// The order-statistic draw is the bootstrap itself: its interval for p99
// matches one from materialised resamples of the same records.
func TestQuantileCIMatchesResampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{150, 1000} {
		x := make([]float64, n)
		for i := range x {
			x[i] = 100 * rng.ExpFloat64()
		}
		slices.Sort(x)
		lo, hi := stats.QuantileCI(x, 99, 7)
		reps := make([]float64, 4000)
		buf := make([]float64, n)
		for i := range reps {
			for j := range buf {
				buf[j] = x[rng.IntN(n)]
			}
			slices.Sort(buf)
			reps[i] = stats.QuantileSorted(buf, 99)
		}
		slices.Sort(reps)
		blo, bhi := stats.QuantileSorted(reps, 2.5), stats.QuantileSorted(reps, 97.5)
		p99 := stats.QuantileSorted(x, 99)
		if !(lo <= p99 && p99 <= hi) {
			t.Errorf("n=%d: p99 %.1f outside its interval [%.1f, %.1f]", n, p99, lo, hi)
		}
		// Two Monte Carlo estimates of the same interval: within 10 % of its width.
		if tol := 0.1 * (bhi - blo); math.Abs(lo-blo) > tol || math.Abs(hi-bhi) > tol {
			t.Errorf("n=%d: interval [%.1f, %.1f], resampling gives [%.1f, %.1f]", n, lo, hi, blo, bhi)
		}
	}
}

func TestBinomialMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		n int
		p float64
	}{{100, 0.97}, {5000, 0.999}, {5000, 0.5}, {100000, 0.99}} {
		var sum, ss float64
		const k = 4000
		for range k {
			v := float64(stats.Binomial(rng, c.n, c.p))
			sum += v
			ss += v * v
		}
		mean := sum / k
		sd := math.Sqrt(ss/k - mean*mean)
		wantMean, wantSD := float64(c.n)*c.p, math.Sqrt(float64(c.n)*c.p*(1-c.p))
		if math.Abs(mean-wantMean) > 4*wantSD/math.Sqrt(k)+0.01 || math.Abs(sd-wantSD) > 0.1*wantSD {
			t.Errorf("B(%d, %g): mean %.2f sd %.2f, want %.2f and %.2f", c.n, c.p, mean, sd, wantMean, wantSD)
		}
	}
}

// The knee's interval spans the bracket between the last passing and the
// first failing rate, widened by the rates whose pass or fail a resample
// can flip: a point at 99.0 % good against a 99 % target flips half the
// time, one at 100 % of 1,000 never does.
func TestKneeCI(t *testing.T) {
	pt := func(rate, good float64, n int) *Point {
		return &Point{Kind: PointRate, Rate: rate, Report: &summary.Report{Completed: n, GoodputPercent: good}}
	}
	s := &Sweep{KneeGoodput: 99, Points: []*Point{pt(2, 100, 1000), pt(4, 100, 1000), pt(6, 99.0, 1000), pt(8, 80, 1000)}}
	s.Knee = s.Points[2]
	lo, hi, ok := s.KneeCI()
	if !ok || lo != 4 || hi != 8 {
		t.Errorf("knee CI %v–%v (ok %v), want 4–8", lo, hi, ok)
	}
	s = &Sweep{KneeGoodput: 99, Points: []*Point{pt(2, 100, 1000), pt(4, 100, 1000), pt(6, 70, 1000)}}
	if lo, hi, _ := s.KneeCI(); lo != 4 || hi != 6 {
		t.Errorf("clear knee: CI %v–%v, want the bracket 4–6", lo, hi)
	}
}

func TestSampleWarnings(t *testing.T) {
	x := make([]float64, 40)
	for i := range x {
		x[i] = float64(i)
	}
	// TTFT and E2EL share a count and a set of thin percentiles: one line.
	rep := &summary.Report{TTFT: stats.ExactStats(x, []float64{50, 90, 99.9}), E2EL: stats.ExactStats(x, []float64{50, 90, 99.9}), TPOT: stats.ExactStats(x[:30], nil)}
	w := rep.SampleWarnings()
	if len(w) != 2 || w[0] != "p99, p99.9 TTFT, E2EL rest on 40 samples (p99 needs 100, p99.9 needs 1000; below that a percentile is the maximum)" ||
		w[1] != "p99 TPOT rest on 30 samples (p99 needs 100; below that a percentile is the maximum)" {
		t.Errorf("warnings:\n%s", strings.Join(w, "\n"))
	}
	x = make([]float64, 1000)
	if w := (&summary.Report{TTFT: stats.ExactStats(x, []float64{50, 99})}).SampleWarnings(); len(w) != 0 {
		t.Errorf("1,000 samples: %v", w)
	}
}

// The knee sentence pairs the rate the server achieved with the output
// throughput of the same requests, the offered rate beside it.
func TestKneeSummaryAchievedRate(t *testing.T) {
	k := &Point{Kind: PointRate, Rate: 10, Report: &summary.Report{RequestThroughput: 9.5, OutputThroughput: 304, GoodputPercent: 100}}
	s := &Sweep{KneeGoodput: 99, Points: []*Point{k}, Knee: k}
	if got := s.KneeSummary(); !strings.HasPrefix(got, "9.50 req/s achieved (10.00 offered), 304 output tok/s") {
		t.Errorf("knee sentence %q", got)
	}
	if s.KneeRate() != 9.5 {
		t.Errorf("knee rate %g, want the achieved 9.5", s.KneeRate())
	}
}
