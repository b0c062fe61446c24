package report

import (
	"fmt"
	"io"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// WriteExtra prints one line per series (and the endpoints' failures).
func WriteExtra(r *serverwatch.ExtraReport, w io.Writer, title string) {
	if len(r.Endpoints) == 0 {
		return
	}
	fmt.Fprintln(w, textfmt.Center(" "+title+" ", '='))
	for _, e := range r.Endpoints {
		status := fmt.Sprintf("%d scrapes, %d failed", e.Scrapes, e.Failures)
		if e.LastError != "" {
			status += " (last: " + e.LastError + ")"
		}
		if e.DroppedSeries > 0 {
			status += fmt.Sprintf(", %d series over the %d kept", e.DroppedSeries, serverwatch.MaxExtraSeries)
		}
		fmt.Fprintf(w, "%s: %s\n", e.URL, status)
		for i := range e.Series {
			s := &e.Series[i]
			line := fmt.Sprintf("  %-40s mean %.4g  min %.4g  max %.4g", s.Name+s.ShortLabels(), s.Mean, s.Min, s.Max)
			if s.Counter {
				line += fmt.Sprintf("  increase %.4g", s.Increase)
			}
			fmt.Fprintln(w, line)
		}
	}
}
