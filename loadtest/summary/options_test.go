package summary

import (
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
)

// A negative burstiness (or temperature) is an error, not silently 1.
func TestOptionsRejectNegativeBurstiness(t *testing.T) {
	o := runkit.BaseOptions(&config.Target{}, http.DefaultClient, 8, 2)
	o.Rate, o.NumPrompts = 10, 1
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		o.Burstiness = bad
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), "burstiness") {
			t.Errorf("burstiness %g: %v", bad, err)
		}
	}
	o.Burstiness = 0 // unset: 1
	if err := o.Check(); err != nil {
		t.Errorf("burstiness 0 (unset): %v", err)
	}
	temp := -0.5
	o.Temperature = &temp
	if err := o.Check(); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Errorf("temperature -0.5: %v", err)
	}
}
