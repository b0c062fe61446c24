package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// Three runs with output throughput 10, 12 and 14 tok/s: mean 12,
// s = 2, 95 % CI 12 ± 4.30265273·2/√3 = [7.031725, 16.968275].
func TestSummarizeRuns(t *testing.T) {
	var reps []*summary.Report
	for i, tput := range []float64{10, 12, 14} {
		st := stats.ExactStats([]float64{float64(100 + i)}, []float64{50, 90})
		reps = append(reps, &summary.Report{OutputThroughput: tput, Completed: 9, Failed: 1, TTFT: st, TPOT: st, ITL: st, E2EL: st})
	}
	s := summary.SummarizeRuns(reps, []int64{0, 1, 2})
	row := func(k string) summary.RunsRow {
		for _, r := range s.Rows {
			if r.Key == k {
				return r
			}
		}
		t.Fatalf("no row %s", k)
		return summary.RunsRow{}
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
	WriteRuns(s, &buf)
	if !strings.Contains(buf.String(), "3 runs (seeds 0, 1, 2)") || !strings.Contains(buf.String(), "[7.03, 16.97]") {
		t.Errorf("text:\n%s", buf.String())
	}
}
