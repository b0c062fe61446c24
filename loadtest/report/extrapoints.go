package report

import (
	"io"

	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// WriteExtraPoints prints each sweep point's (or run's) summary, then the
// whole.
func WriteExtraPoints(s *serverwatch.ExtraSet, w io.Writer) {
	if s == nil || len(s.Points) == 0 {
		return
	}
	var all []serverwatch.ExtraReport
	for _, p := range s.Points {
		WriteExtra(&p.Rep, w, "Extra metrics: "+p.Label)
		all = append(all, p.Rep)
	}
	total := serverwatch.MergeExtra(all)
	WriteExtra(&total, w, "Extra metrics over every point")
}
