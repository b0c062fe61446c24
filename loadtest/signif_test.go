package loadtest

import (
	"math"
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
