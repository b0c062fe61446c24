package compare

import (
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// Two --num-runs summaries compare across runs: throughput, one number
// per run, is tested (Welch's t) and a drop beyond the runs' spread is a
// regression; an equal spread is not; three runs a side are called weak.
func TestCompareRunsAcrossRuns(t *testing.T) {
	sum := func(tput ...float64) *summary.RunsSummary {
		var reps []*summary.Report
		for _, v := range tput {
			reps = append(reps, &summary.Report{OutputThroughput: v, Completed: 10})
		}
		return summary.SummarizeRuns(reps, make([]int64, len(tput)))
	}
	ts, _ := ParseThresholds("output_throughput:5%")
	base := sum(1000, 1010, 990, 1005, 995)
	c := CompareRuns(base, sum(900, 905, 895, 910, 890), "a", "b", 0.05, ts)
	r := c.Row("output_throughput")
	if c.Mode != "runs" || r.Test != "welch-t" || !r.Significant || len(c.Regressions) != 1 || len(c.Warnings) != 0 {
		t.Errorf("a 10%% drop: %+v, regressions %q, warnings %q", r, c.Regressions, c.Warnings)
	}
	c = CompareRuns(base, sum(940, 1060, 1000), "a", "b", 0.05, ts)
	if r := c.Row("output_throughput"); r.Significant || len(c.Regressions) != 0 || len(c.Warnings) != 1 ||
		!strings.Contains(c.Warnings[0], "3 runs on a side") {
		t.Errorf("noise: %+v, regressions %q, warnings %q", r, c.Regressions, c.Warnings)
	}
}
