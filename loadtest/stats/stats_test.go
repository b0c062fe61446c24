package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// numpy.percentile's default method, checked on numpy's own outputs.
func TestQuantileMatchesNumpy(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	for _, c := range []struct{ p, want float64 }{{50, 2.5}, {90, 3.7}, {99, 3.97}, {0, 1}, {100, 4}} {
		if got := QuantileSorted(x, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("p%g = %g, want %g", c.p, got, c.want)
		}
	}
	s := ExactStats([]float64{3, 1, 2}, []float64{50})
	if s.Mean != 2 || s.Median != 2 || math.Abs(s.Std-math.Sqrt(2.0/3)) > 1e-12 {
		t.Errorf("stats %+v: want mean 2, median 2, population std √(2/3)", s)
	}
}

// The histogram's quantiles stay within HistRelError of the exact ones.
func TestHistRelativeError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h Hist
	var exact []float64
	for range 200000 {
		ns := int64(math.Exp(rng.NormFloat64()*1.5 + 16)) // ~9 ms, wide spread
		h.Add(ns)
		exact = append(exact, float64(ns)/1e6)
	}
	slices.Sort(exact)
	ps := []float64{1, 10, 50, 90, 99, 99.9, 99.99}
	st := h.Stats(ps)
	for _, p := range st.Percentiles {
		want := QuantileSorted(exact, p.P)
		if rel := math.Abs(p.Value-want) / want; rel > HistRelError {
			t.Errorf("p%g = %g, exact %g: relative error %.2e over %.2e", p.P, p.Value, want, rel, HistRelError)
		}
	}
	mean, std := MeanStd(exact)
	if math.Abs(st.Mean-mean)/mean > 1e-9 || math.Abs(st.Std-std)/std > 1e-6 {
		t.Errorf("mean/std %g/%g, exact %g/%g", st.Mean, st.Std, mean, std)
	}
	for _, v := range []int64{0, 1, 1023, 1024, 1025, 2047, 2048, 1 << 40} {
		if mid := BucketMid(bucketOf(v)); math.Abs(mid-float64(v)) > float64(v)*HistRelError+0.5 {
			t.Errorf("value %d lands in a bucket centred at %g", v, mid)
		}
	}
}

// Gamma gaps have mean 1/rate and coefficient of variation 1/√shape.
func TestArrivalsGammaMoments(t *testing.T) {
	for _, shape := range []float64{1, 0.5, 4} {
		a := NewArrivals(100, shape, 7)
		const n = 40000
		gaps := make([]float64, n)
		prev := a.Next()
		for i := range gaps {
			t := a.Next()
			gaps[i] = (t - prev).Seconds()
			prev = t
		}
		mean, std := MeanStd(gaps)
		cv := std / mean
		if math.Abs(mean-0.01)/0.01 > 0.03 {
			t.Errorf("shape %g: mean gap %g s, want 0.01", shape, mean)
		}
		if want := 1 / math.Sqrt(shape); math.Abs(cv-want)/want > 0.05 {
			t.Errorf("shape %g: CV %g, want %g", shape, cv, want)
		}
	}
	inf := NewArrivals(math.Inf(1), 1, 1)
	for range 3 {
		if inf.Next() != 0 {
			t.Fatal("an infinite rate must send everything at once")
		}
	}
}

// The p99 interval reads the values in time order: the same values with
// the slow ones bunched in episodes of neighbours give a wider interval
// than spread out, where resampling one by one cannot tell them apart.
func TestExactStatsCIBlocksNeighbours(t *testing.T) {
	bunched := make([]float64, 1000)
	spread := make([]float64, 1000)
	for i := range bunched {
		bunched[i], spread[i] = 100, 100
	}
	for _, at := range []int{30, 90, 150, 610, 640} { // five episodes of 20 slow requests
		for j := range 20 {
			bunched[at+j] = 300 + float64(j)
		}
	}
	for i := range spread {
		if i%10 == 0 { // the same 100 slow values, one in ten
			spread[i] = 300 + float64(i/10%20)
		}
	}
	b := ExactStatsCI(bunched, []float64{99})
	s := ExactStatsCI(spread, []float64{99})
	if b.Value(99) != s.Value(99) || b.P99High-b.P99Low <= 1.5*(s.P99High-s.P99Low) {
		t.Errorf("p99 %g vs %g; bunched interval %g–%g, spread %g–%g", b.Value(99), s.Value(99), b.P99Low, b.P99High, s.P99Low, s.P99High)
	}
	if e := ExactStats([]float64{1, 2, 3}, nil); !math.IsNaN(e.P99Low) {
		t.Errorf("ExactStats computed an interval: %g", e.P99Low)
	}
}
