package compare

import (
	"fmt"
	"slices"

	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// CompareRuns compares two --num-runs summaries across their runs: each
// metric's per-run values, base against new, by Welch's t-test. A run is
// the unit, so what varies between runs (the host, the server's state,
// the prompts drawn) is in the test's noise; requests within a run are
// never treated as independent.
func CompareRuns(base, nw *summary.RunsSummary, basePath, newPath string, alpha float64, ts []Threshold) *Comparison {
	c := &Comparison{Base: basePath, New: newPath, Alpha: alpha, Mode: "runs", BaseRuns: base.Runs, NewRuns: nw.Runs,
		WorkloadDiffs: resultfile.WorkloadDiffs(workloadOf(base), workloadOf(nw)), Regressions: []string{},
		BaseSendLagP99: nonNil(base.SendLagP99), NewSendLagP99: nonNil(nw.SendLagP99), Warnings: []string{}}
	if n := min(base.Runs, nw.Runs); n < summary.MinRunsForCI {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d runs on a side: the test across runs is weak (few degrees of freedom, "+
			"and only as good as the runs' values are near normal); --num-runs %d or more", n, summary.MinRunsForCI))
	}
	rows := c.newRows()
	for _, br := range base.Rows {
		r := rows[br.Key]
		i := slices.IndexFunc(nw.Rows, func(x summary.RunsRow) bool { return x.Key == br.Key })
		if r == nil || i < 0 || len(br.Values) == 0 || len(nw.Rows[i].Values) == 0 {
			continue
		}
		a, b := br.Values, nw.Rows[i].Values
		ma, _ := stats.MeanStd(a)
		mb, _ := stats.MeanStd(b)
		r.set(ma, mb)
		if len(a) >= 2 && len(b) >= 2 {
			w := stats.Welch(a, b, alpha)
			r.Test, r.PValue, r.CILow, r.CIHigh = "welch-t", summary.Num(w.PValue), summary.Num(w.Lo), summary.Num(w.Hi)
		}
	}
	c.finish(rows, ts)
	return c
}

// workloadOf is a summary's workload settings as a run file's keys.
func workloadOf(s *summary.RunsSummary) *resultfile.RunFile {
	rf := &resultfile.RunFile{Keys: map[string]any{}}
	for k, v := range s.Workload {
		rf.Keys[k] = v
	}
	return rf
}

func nonNil(x []float64) []float64 {
	if x == nil {
		return []float64{}
	}
	return x
}
