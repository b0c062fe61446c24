package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// WriteRuns prints the summary: one line per metric.
func WriteRuns(s *summary.RunsSummary, w io.Writer) {
	fmt.Fprintf(w, "\n%s\n", textfmt.Center(fmt.Sprintf(" %d runs (seeds %s) ", s.Runs, seedList(s.Seeds)), '='))
	fmt.Fprintf(w, "%-26s %12s %10s  %s\n", "Metric", "Mean", "Std", "95% CI of the mean (Student t)")
	for _, r := range s.Rows {
		ci := "n/a"
		if r.CILow != nil {
			ci = fmt.Sprintf("[%.2f, %.2f]", *r.CILow, *r.CIHigh)
		}
		fmt.Fprintf(w, "%-26s %12s %10s  %s\n", r.Key+" ("+r.Unit+")", textfmt.FmtNum(r.Mean), textfmt.FmtNum(r.Std), ci)
	}
}

func seedList(seeds []int64) string {
	var parts []string
	for _, s := range seeds {
		parts = append(parts, fmt.Sprint(s))
	}
	return strings.Join(parts, ", ")
}
