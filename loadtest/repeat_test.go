package loadtest

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// Table values and the interpolation beyond 30 degrees of freedom
// against scipy.stats.t.ppf(0.975, df): 50 → 2.00855911, 1000 →
// 1.96233908.
func TestTQuantile975(t *testing.T) {
	for df, want := range map[int]float64{1: 12.7062047, 2: 4.30265273, 10: 2.22813885, 30: 2.04227246,
		50: 2.00855911, 120: 1.97993040, 1000: 1.96233908} {
		if got := TQuantile975(df); math.Abs(got-want) > 1e-4 {
			t.Errorf("df %d: %.8f, want %.8f", df, got, want)
		}
	}
	if !math.IsNaN(TQuantile975(0)) {
		t.Error("df 0 has no quantile")
	}
}

// Three runs with output throughput 10, 12 and 14 tok/s: mean 12,
// s = 2, 95 % CI 12 ± 4.30265273·2/√3 = [7.031725, 16.968275].
func TestSummarizeRuns(t *testing.T) {
	var reps []*Report
	for i, tput := range []float64{10, 12, 14} {
		st := exactStats([]float64{float64(100 + i)}, []float64{50, 90})
		reps = append(reps, &Report{OutputThroughput: tput, Completed: 9, Failed: 1, TTFT: st, TPOT: st, ITL: st, E2EL: st})
	}
	s := SummarizeRuns(reps, []int64{0, 1, 2})
	row := func(k string) RunsRow {
		for _, r := range s.Rows {
			if r.Key == k {
				return r
			}
		}
		t.Fatalf("no row %s", k)
		return RunsRow{}
	}
	r := row("output_throughput")
	if *r.Mean != 12 || *r.Std != 2 || math.Abs(*r.CILow-7.03172458) > 1e-6 || math.Abs(*r.CIHigh-16.96827542) > 1e-6 {
		t.Errorf("output throughput: %+v %g %g %g %g", r, *r.Mean, *r.Std, *r.CILow, *r.CIHigh)
	}
	if r := row("failed_percent"); *r.Mean != 10 || *r.Std != 0 || *r.CILow != 10 {
		t.Errorf("failed: %+v", r)
	}
	if r := row("p99_ttft_ms"); *r.Mean != 101 { // p99 is always computed
		t.Errorf("p99 TTFT: %+v", r)
	}
	if r := row("goodput"); r.Mean != nil { // no SLOs
		t.Errorf("goodput: %+v", r)
	}
	var buf bytes.Buffer
	s.WriteText(&buf)
	if !strings.Contains(buf.String(), "3 runs (seeds 0, 1, 2)") || !strings.Contains(buf.String(), "[7.03, 16.97]") {
		t.Errorf("text:\n%s", buf.String())
	}
}

func TestReseed(t *testing.T) {
	w := NewSynthetic(20, 4, 8, 0, 1, nil)
	r := Reseed(w, 2).(*Synthetic)
	if r.Seed != 2 || w.Seed != 1 || r.Item(0).Prompt == w.Item(0).Prompt || !strings.HasPrefix(r.Item(0).Prompt, w.prefix) {
		t.Errorf("reseeded: %q vs %q", r.Item(0).Prompt, w.Item(0).Prompt)
	}
}
