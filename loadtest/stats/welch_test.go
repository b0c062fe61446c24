package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Student's t survival function against its closed forms: df 1 is
// Cauchy, ½ − atan(t)/π; df 2 is ½ − t/(2√(2+t²)); and the quantile
// against the 0.975 table.
func TestTSFClosedForms(t *testing.T) {
	for _, x := range []float64{0, 0.5, 1, 2.5, 10, 100} {
		if got, want := TSF(x, 1), 0.5-math.Atan(x)/math.Pi; math.Abs(got-want) > 1e-12 {
			t.Errorf("df 1, t %g: %.15g, want %.15g", x, got, want)
		}
		if got, want := TSF(x, 2), 0.5-x/(2*math.Sqrt(2+x*x)); math.Abs(got-want) > 1e-12 {
			t.Errorf("df 2, t %g: %.15g, want %.15g", x, got, want)
		}
	}
	for _, df := range []int{1, 2, 4, 9, 30, 120} {
		if got, want := TQuantile(0.975, float64(df)), TQuantile975(df); math.Abs(got-want) > 1e-6 {
			t.Errorf("t 0.975 quantile, df %d: %.8f, want %.8f", df, got, want)
		}
	}
}

// Welch by hand: a = 1…4 (mean 2.5, s² 5/3), b = 2, 4, …, 10 (mean 6,
// s² 10): se² = 5/12 + 2, t = 3.5/√(29/12) = 2.251437, df =
// (29/12)² / ((5/12)²/3 + 2²/4) = 5.520788; p = 2·TSF(t, df).
func TestWelchByHand(t *testing.T) {
	w := Welch([]float64{1, 2, 3, 4}, []float64{2, 4, 6, 8, 10}, 0.05)
	se := math.Sqrt(29.0 / 12)
	df := (29.0 / 12) * (29.0 / 12) / ((5.0/12)*(5.0/12)/3 + 1)
	if w.Diff != 3.5 || math.Abs(w.DF-df) > 1e-12 || math.Abs(df-5.520788) > 1e-6 {
		t.Errorf("diff %g df %.9g, want 3.5 and %.9g", w.Diff, w.DF, df)
	}
	if p := 2 * TSF(3.5/se, df); math.Abs(w.PValue-p) > 1e-15 || w.PValue < 0.06 || w.PValue > 0.08 {
		t.Errorf("p %.9g, want %.9g (between 0.06 and 0.08: |t| 2.25 at 5.5 df)", w.PValue, p)
	}
	if half := TQuantile(0.975, df) * se; math.Abs(w.Lo-(3.5-half)) > 1e-12 || math.Abs(w.Hi-(3.5+half)) > 1e-12 || w.Lo > 0 {
		t.Errorf("interval [%g, %g]", w.Lo, w.Hi)
	}
	if w := Welch([]float64{5, 5}, []float64{5, 5, 5}, 0.05); w.PValue != 1 {
		t.Errorf("no spread, no change: p %g", w.PValue)
	}
	if w := Welch([]float64{5, 5}, []float64{6, 6}, 0.05); w.PValue != 0 || w.Lo != 1 {
		t.Errorf("no spread, a change: %+v", w)
	}
	if w := Welch([]float64{5}, []float64{6, 6}, 0.05); w.PValue != 1 || !math.IsNaN(w.Lo) {
		t.Errorf("one run: %+v", w)
	}
}

// A Grouped sample's statistics are those of its pooled values (numpy's
// linear percentile).
func TestGroupedStats(t *testing.T) {
	g := &Grouped{}
	var all []float64
	for i := range 30 {
		vals := []float64{float64(i % 7), float64(i*i%11) + 0.5}
		g.Add(vals...)
		all = append(all, vals...)
	}
	m, _ := MeanStd(all)
	sorted := append([]float64(nil), all...)
	for i := range sorted { // insertion sort: no dependency on the code under test
		for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	if got := g.Stat(-1); math.Abs(got-m) > 1e-12 {
		t.Errorf("mean %g, want %g", got, m)
	}
	for _, p := range []float64{0, 10, 50, 90, 99, 100} {
		if got, want := g.Stat(p), QuantileSorted(sorted, p); got != want {
			t.Errorf("p%g: %g, want %g", p, got, want)
		}
	}
	if BatchLen(1000) != 167 || BatchLen(1) != 1 || BatchLen(0) != 1 {
		t.Errorf("batch lengths %d %d", BatchLen(1000), BatchLen(1))
	}
}

// BenchmarkBatchDiffs is compare's batch-means test of mean, p50, p90
// and p99 over two runs of n requests each (one value a request).
func BenchmarkBatchDiffs(b *testing.B) {
	for _, n := range []int{40_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x, y := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i], y[i] = rng.ExpFloat64(), rng.ExpFloat64()
			}
			ga, gb := GroupedOf(x), GroupedOf(y)
			for b.Loop() {
				BatchDiffs(ga, gb, []float64{-1, 50, 90, 99}, 0.05)
			}
		})
	}
}
