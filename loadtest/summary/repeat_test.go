package summary

import (
	"math"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// Table values and the interpolation beyond 30 degrees of freedom
// against scipy.stats.t.ppf(0.975, df): 50 → 2.00855911, 1000 →
// 1.96233908.
func TestTQuantile975(t *testing.T) {
	for df, want := range map[int]float64{1: 12.7062047, 2: 4.30265273, 10: 2.22813885, 30: 2.04227246,
		50: 2.00855911, 120: 1.97993040, 1000: 1.96233908} {
		if got := stats.TQuantile975(df); math.Abs(got-want) > 1e-4 {
			t.Errorf("df %d: %.8f, want %.8f", df, got, want)
		}
	}
	if !math.IsNaN(stats.TQuantile975(0)) {
		t.Error("df 0 has no quantile")
	}
}

func TestReseed(t *testing.T) {
	w := workload.NewSynthetic(20, 4, 8, 0, 1, nil)
	r := workload.Reseed(w, 2).(*workload.Synthetic)
	if r.Seed != 2 || w.Seed != 1 || r.Item(0).Prompt == w.Item(0).Prompt || !strings.HasPrefix(r.Item(0).Prompt, w.Prefix) {
		t.Errorf("reseeded: %q vs %q", r.Item(0).Prompt, w.Item(0).Prompt)
	}
}
