package capacity

import (
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
	p, err := NewPlan(35, 5_000_000, 0, 0, 2, 1)
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
