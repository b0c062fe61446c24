package report

import (
	"bytes"
	"encoding/json"
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

// Issue 31: three runs with goodput 100, 100 and 80 % gave [69.6, 108.4]
// style intervals, and a p99 ITL of 10, 12 and 60 ms one below zero.
// The between-run interval is clipped to the metric's range, says so,
// and three runs are flagged weak (text and JSON).
func TestSummarizeRunsClipsAndWarns(t *testing.T) {
	var reps []*summary.Report
	for i, good := range []float64{100, 100, 80} {
		itl := stats.ExactStats([]float64{[]float64{10, 12, 60}[i]}, []float64{99})
		reps = append(reps, &summary.Report{SLO: summary.SLO{TTFT: 1e9}, GoodputPercent: good, Completed: 10,
			TTFT: itl, TPOT: itl, ITL: itl, E2EL: itl})
	}
	s := summary.SummarizeRuns(reps, []int64{0, 1, 2})
	for _, r := range s.Rows {
		raw, _ := json.Marshal(r)
		flags := strings.Contains(string(raw), `"ci95_clipped":true`) && strings.Contains(string(raw), `"ci95_weak":true`)
		switch r.Key {
		case "goodput":
			if *r.CIHigh != 100 || !flags || *r.CILow >= *r.Mean {
				t.Errorf("goodput: [%g, %g]: %s", *r.CILow, *r.CIHigh, raw)
			}
		case "p99_itl_ms":
			if *r.CILow != 0 || !flags {
				t.Errorf("p99 ITL: [%g, %g]: %s", *r.CILow, *r.CIHigh, raw)
			}
		}
	}
	var buf bytes.Buffer
	WriteRuns(s, &buf)
	for _, want := range []string{"[0.00, ", ", 100.00] (clipped)", "warning: 3 runs make weak intervals", "include run-to-run variation"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}
