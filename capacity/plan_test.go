package capacity

import (
	"math"
	"strings"
	"testing"
)

// The plan follows the formula exactly.
func TestCapacityPlan(t *testing.T) {
	p, err := NewPlan(4, 10_000_000, 0, 2, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	// 10M/86400 × 2 = 231.48 req/s; /4 → 58 replicas; ×2 → 116; ×8 GPUs.
	if math.Abs(p.RequiredRate-231.481) > 0.01 || p.BaseReplicas != 58 || p.Replicas != 116 || p.GPUs != 928 {
		t.Errorf("plan %+v", p)
	}
	var b strings.Builder
	p.WriteText(&b)
	for _, want := range []string{"10000000 / 86,400 = 115.741", "115.741 × 2 = 231.481", "ceil(ceil(231.481 / 4.000) × 2) = ceil(58 × 2) = 116", "116 × 8 = 928"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, b.String())
		}
	}
	p, _ = NewPlan(10, 0, 25, 1, 1.5, 1)
	if p.BaseReplicas != 3 || p.Replicas != 5 {
		t.Errorf("peak 25 at 10/replica, ×1.5: %+v", p)
	}
	if _, err := NewPlan(0, 1, 0, 1, 2, 1); err == nil {
		t.Error("a zero knee must be refused")
	}
}
