package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Known values, computed by hand from the formulas scipy uses
// (scipy.stats.mannwhitneyu(a, b, method="asymptotic"): U = max(U1, U2),
// z = (U − n1·n2/2 − 0.5) / σ, σ² = n1·n2/12 · ((n+1) − Σ(t³−t)/(n(n−1))),
// p = 2·sf(z)).
func TestMannWhitneyKnownValues(t *testing.T) {
	for _, c := range []struct {
		name  string
		a, b  []float64
		u, p  float64
		delta float64
	}{
		// No ties: U1 = 0, σ² = 25/12·11, z = 12/4.7871 = 2.5067,
		// p = 0.0121858 (scipy: pvalue=0.012185780355344818).
		{"separated", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0, 0.012185780355344818, 1e-12},
		// Ties: ranks 1, 3, 3, 6 for a → R1 = 13, U1 = 3, U = 17; two
		// ties of 3 → Σ(t³−t) = 48; σ² = 20/12·(10 − 48/72) = 15.556,
		// z = 6.5/3.9441 = 1.6481, p = 0.0993422.
		{"ties", []float64{1, 2, 2, 3}, []float64{2, 3, 3, 4, 5}, 3, 0.09934224785346527, 1e-12},
		// Same values: nothing to tell apart.
		{"equal", []float64{4, 4, 4}, []float64{4, 4}, 3, 1, 0},
	} {
		u, p := MannWhitney(c.a, c.b)
		if u != c.u || math.Abs(p-c.p) > c.delta {
			t.Errorf("%s: U=%g p=%.15g, want U=%g p=%.15g", c.name, u, p, c.u, c.p)
		}
	}
	if _, p := MannWhitney(nil, []float64{1}); p != 1 {
		t.Errorf("empty sample: p=%g, want 1", p)
	}
}

// 90 of 100 against 80 of 100: pooled 0.85, se = √(0.85·0.15·0.02) =
// 0.050498, z = −0.1/0.050498 = −1.98030, p = 0.0476704.
func TestTwoProportionKnownValues(t *testing.T) {
	z, p := TwoProportion(90, 100, 80, 100)
	if math.Abs(z+1.9802950859533481) > 1e-12 || math.Abs(p-0.047670380656161505) > 1e-12 {
		t.Errorf("z=%.15g p=%.15g", z, p)
	}
	if _, p := TwoProportion(100, 100, 50, 50); p != 1 {
		t.Errorf("all good on both sides: p=%g, want 1", p)
	}
}

func TestBootstrapQuantileDiffs(t *testing.T) {
	var a, b []float64
	for i := range 1000 {
		a = append(a, float64(i))
		b = append(b, float64(i)+100)
	}
	ps := []float64{50, 99}
	for _, d := range BootstrapQuantileDiffs(a, b, ps, 0.05) {
		if d.Diff != 100 || !(d.Lo > 0 && d.Lo <= 100 && d.Hi >= 100) || d.PValue > 0.01 {
			t.Errorf("shifted by 100: %+v", d)
		}
	}
	same := BootstrapQuantileDiffs(a, a, ps, 0.05)
	for _, d := range same {
		if d.Diff != 0 || !(d.Lo <= 0 && d.Hi >= 0) || d.PValue < 0.05 {
			t.Errorf("same sample: %+v", d)
		}
	}
	if again := BootstrapQuantileDiffs(a, a, ps, 0.05); again[1] != same[1] {
		t.Errorf("not reproducible: %+v then %+v", same[1], again[1])
	}
}

// The one-pass read of order statistics from counts agrees with the
// report's percentiles: on the sample itself (every count 1) and on a
// resample given as counts.
func TestQuantilesFromCounts(t *testing.T) {
	x := []float64{1, 2, 4, 8, 16, 32, 64}
	ps := []float64{0, 10, 50, 90, 99, 100}
	q := make([]float64, len(ps))
	quantilesFromCounts(x, []int32{1, 1, 1, 1, 1, 1, 1}, ps, q)
	for i, p := range ps {
		if want := QuantileSorted(x, p); q[i] != want {
			t.Errorf("p%g = %g, want %g", p, q[i], want)
		}
	}
	// The resample {2, 2, 2, 8, 32, 32, 64}.
	quantilesFromCounts(x, []int32{0, 3, 0, 1, 0, 2, 1}, ps, q)
	res := []float64{2, 2, 2, 8, 32, 32, 64}
	for i, p := range ps {
		if want := QuantileSorted(res, p); q[i] != want {
			t.Errorf("resample p%g = %g, want %g", p, q[i], want)
		}
	}
}

// Two samples of n: 40,000 each is the largest exact bootstrap (500
// resamples), 1,000,000 each goes by rank.
func BenchmarkBootstrapQuantileDiffs(b *testing.B) {
	for _, n := range []int{40_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			a := make([]float64, n)
			for i := range a {
				a[i] = float64(i)
			}
			for b.Loop() {
				BootstrapQuantileDiffs(a, a, []float64{90, 99}, 0.05)
			}
		})
	}
}

// The ranks' normal approximation (large runs) gives the exact
// bootstrap's interval: on 20,000 exponential latencies against the same
// shifted by 2 %, the p50 and p99 intervals agree within a fifth of
// their width.
func TestBootstrapByRankAgreesWithExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := make([]float64, 20000), make([]float64, 20000)
	for i := range a {
		a[i] = 100 * rng.ExpFloat64()
		b[i] = 102 * rng.ExpFloat64()
	}
	slices.Sort(a)
	slices.Sort(b)
	ps := []float64{50, 99}
	exact, byRank := make([]QuantileDiff, 2), make([]QuantileDiff, 2)
	bootstrapDiffs(a, b, ps, 0.05, 1000, false, exact)
	bootstrapDiffs(a, b, ps, 0.05, 1000, true, byRank)
	for i := range ps {
		w := exact[i].Hi - exact[i].Lo
		if math.Abs(byRank[i].Lo-exact[i].Lo) > w/5 || math.Abs(byRank[i].Hi-exact[i].Hi) > w/5 {
			t.Errorf("p%g: exact [%g, %g], by rank [%g, %g]", ps[i], exact[i].Lo, exact[i].Hi, byRank[i].Lo, byRank[i].Hi)
		}
	}
	if !ranksNormal(20000, ps) || ranksNormal(1000, []float64{99.9}) {
		t.Error("ranksNormal")
	}
}
