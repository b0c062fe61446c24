package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// WriteRuns prints the summary: one line per metric, then what the
// intervals cover and, under summary.MinRunsForCI runs, that they are weak.
func WriteRuns(s *summary.RunsSummary, w io.Writer) {
	fmt.Fprintf(w, "\n%s\n", textfmt.Center(fmt.Sprintf(" %d runs (seeds %s) ", s.Runs, seedList(s.Seeds)), '='))
	fmt.Fprintf(w, "%-26s %12s %10s  %s\n", "Metric", "Mean", "Std", "95% CI of the mean (Student t)")
	clipped := false
	for _, r := range s.Rows {
		ci := "n/a"
		if r.CILow != nil {
			ci = fmt.Sprintf("[%.2f, %.2f]", *r.CILow, *r.CIHigh)
			if r.Clipped {
				ci += " (clipped)"
				clipped = true
			}
		}
		fmt.Fprintf(w, "%-26s %12s %10s  %s\n", summary.MetricLabel(r.Key, r.Unit), textfmt.FmtNum(r.Mean), textfmt.FmtNum(r.Std), ci)
	}
	fmt.Fprintln(w, "The intervals are between runs: they include run-to-run variation (host, server state, prompts drawn).")
	if clipped {
		fmt.Fprintln(w, "(clipped): the t interval crossed the metric's range (a share beyond 0–100 %, a latency below 0) and was cut there.")
	}
	if s.Weak() {
		fmt.Fprintf(w, "warning: %d runs make weak intervals (t with %d degrees of freedom, the spread itself a guess); use --num-runs %d or more\n",
			s.Runs, s.Runs-1, summary.MinRunsForCI)
	}
}

func seedList(seeds []int64) string {
	var parts []string
	for _, s := range seeds {
		parts = append(parts, fmt.Sprint(s))
	}
	return strings.Join(parts, ", ")
}
