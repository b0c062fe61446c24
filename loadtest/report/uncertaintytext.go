package report

import (
	"fmt"
	"io"
	"math"

	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// ciText is a p99 interval as "lo–hi", or n/a under two samples.
func ciText(st stats.Stats) string {
	if math.IsNaN(st.P99Low) || st.Count < 2 {
		return "n/a"
	}
	if math.IsInf(st.P99High, 1) { // too few effective requests to bound it above
		return fmt.Sprintf("%.1f–unbounded", st.P99Low)
	}
	return fmt.Sprintf("%.1f–%.1f", st.P99Low, st.P99High)
}

// WriteUncertainty prints a single run's p99 intervals, what they cover
// (this run's sampling error, not another run's), and its sample
// warnings, under the report.
func WriteUncertainty(rep *summary.Report, w io.Writer) {
	fmt.Fprintf(w, "p99 %.0f%% CI (ms, batch means): TTFT %s, TPOT %s, E2EL %s (%d requests)\n", stats.CILevel*100,
		ciText(rep.TTFT), ciText(rep.TPOT), ciText(rep.E2EL), rep.Completed+rep.Failed)
	if !math.IsNaN(rep.TTFT.P99Low) {
		fmt.Fprintf(w, "  this run's sampling error only (%d batches of %d neighbouring requests); "+
			"run-to-run variation is not in it: --num-runs %d measures it\n", stats.Batches, stats.BatchLen(rep.TTFT.Count), summary.MinRunsForCI)
	}
	for _, m := range rep.SampleWarnings() {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	if m := rep.CutShortWarning(); m != "" {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}
