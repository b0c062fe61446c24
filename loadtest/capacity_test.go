package loadtest

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
