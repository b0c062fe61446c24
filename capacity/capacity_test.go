package capacity

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// A capacity plan takes the daily volume or the peak rate, not both.
func TestPlanRefusesBothInputs(t *testing.T) {
	if _, err := NewPlan(4, 1e6, 20, 2, 2, 1); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("daily and peak: %v", err)
	}
	if _, err := NewPlan(4, -5, 0, 2, 2, 1); err == nil {
		t.Error("a negative daily volume must be refused")
	}
}

// The seed's worked example: 5,000,000 requests/day at 35 req/s per GPU
// is ceil(57.9 / 35) = 2 GPUs, ×2 headroom = 4, with the defaults (no
// peak factor, headroom 2); the plan prints every number it used.
func TestPlanSeedWorkedExample(t *testing.T) {
	p, err := NewPlan(35, 5_000_000, 0, 1, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.BaseReplicas != 2 || p.Replicas != 4 || p.GPUs != 4 {
		t.Fatalf("plan %+v, want 2 base replicas, 4 replicas, 4 GPUs", p)
	}
	var b strings.Builder
	p.WriteText(&b)
	for _, want := range []string{"5000000 / 86,400 = 57.870 req/s", "peak-to-average = 1", "57.870 × 1 = 57.870",
		"rate per replica (knee) = 35.000", "headroom = 2", "ceil(2 × 2) = 4", "4 GPUs"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, b.String())
		}
	}
}

// A required rate just past a multiple of the knee prints as that
// multiple: the plan shows the quotient its ceiling took.
func TestPlanShowsQuotientPastAMultiple(t *testing.T) {
	p, err := NewPlan(0.25, 0, 1.00004, 0, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	p.WriteText(&b)
	if p.BaseReplicas != 5 || !strings.Contains(b.String(), "ceil(ceil(1.000 / 0.250) × 2) = ceil(5 × 2) = 10") ||
		!strings.Contains(b.String(), "(required / knee = 4.000160 before rounding)") {
		t.Errorf("%d base replicas:\n%s", p.BaseReplicas, b.String())
	}
	b.Reset()
	p, _ = NewPlan(0.25, 0, 1, 0, 2, 1)
	if p.WriteText(&b); strings.Contains(b.String(), "before rounding") {
		t.Errorf("an exact multiple shows a quotient:\n%s", b.String())
	}
}

// Non-finite, absurd and out-of-range inputs are refused by NewPlan
// itself (every caller is safe), and so is a result an int cannot hold
// or that no fleet has: these printed "-9223372036854775808 replicas" or
// "0 GPUs" (issue 31 item 7).
func TestNewPlanRefusesAbsurdInputs(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name                             string
		knee, daily, peak, p2a, headroom float64
		gpus                             int
		want                             string
	}{
		{"daily 1e30", 35, 1e30, 0, 1, 2, 1, "--daily-requests 1e+30"},
		{"daily NaN", 35, nan, 0, 1, 2, 1, "--daily-requests NaN"},
		{"daily Inf", 35, inf, 0, 1, 2, 1, "--daily-requests +Inf"},
		{"knee NaN", nan, 1e6, 0, 1, 2, 1, "knee rate NaN"},
		{"knee Inf", inf, 1e6, 0, 1, 2, 1, "knee rate +Inf"},
		{"knee 1e-300", 1e-300, 0, 10, 0, 2, 1, "knee rate 1e-300"},
		{"knee -1", -1, 0, 10, 0, 2, 1, "knee rate -1"},
		{"headroom NaN", 35, 1e6, 0, 1, nan, 1, "--headroom NaN"},
		{"headroom Inf", 35, 1e6, 0, 1, inf, 1, "--headroom +Inf"},
		{"peak 1e308", 35, 0, 1e308, 0, 2, 1, "--peak-rps 1e+308"},
		{"peak NaN", 35, 0, nan, 0, 2, 1, "--peak-rps NaN"},
		{"peak-to-average 0", 35, 1e6, 0, 0, 2, 1, "--peak-to-average 0"},
		{"peak-to-average NaN", 35, 1e6, 0, nan, 2, 1, "--peak-to-average NaN"},
		{"gpus 0", 35, 1e6, 0, 1, 2, 0, "--gpus-per-replica 0"},
		{"replicas beyond range", 1e-6, 0, 10, 0, 2, 1, "beyond 1000000 replicas"},
		{"GPUs beyond range", 1, 0, 1000, 0, 2, 1000, "beyond 1000000 replicas or 1000000 GPUs"},
		{"headroom overflow", 35, 0, 100, 0, 1e300, 1, "beyond"},
	} {
		p, err := NewPlan(c.knee, c.daily, c.peak, c.p2a, c.headroom, c.gpus)
		if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %+v, %v; want one line with %q", c.name, p, err, c.want)
		}
	}
	// The edges of the range are plans.
	if p, err := NewPlan(MinKneeRate, 0, 0.5, 0, 2, 1); err != nil || p.Replicas != 1_000_000 {
		t.Errorf("a million replicas: %+v, %v", p, err)
	}
}
