package report

import (
	"fmt"
	"io"
	"math"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// writeStages prints the per-stage table of a ramp or trace run.
func writeStages(rep *summary.Report, w io.Writer) {
	if len(rep.Stages) == 0 {
		return
	}
	fmt.Fprintln(w, textfmt.Center(fmt.Sprintf("Per stage (%d, by request order)", len(rep.Stages)), '-'))
	fmt.Fprintf(w, "%-5s %-13s %-15s %-9s %-17s %-9s", "stage", "requests", "req/s plan/sent", "ok/fail", "TTFT p50/p99 ms", "E2EL p99")
	if rep.SLO.Set() {
		fmt.Fprint(w, " good %")
	}
	fmt.Fprintln(w)
	for i, s := range rep.Stages {
		rate := stageRate(s.PlannedRate) + "/" + stageRate(s.SentRate)
		fmt.Fprintf(w, "%-5d %-13s %-15s %-9s %-17s %-9.1f", i+1, fmt.Sprintf("%d-%d", s.First, s.Last), rate,
			fmt.Sprintf("%d/%d", s.Completed, s.Failed), fmt.Sprintf("%.1f/%.1f", s.TTFT.Median, s.TTFT.Value(99)), s.E2EL.Value(99))
		if rep.SLO.Set() {
			fmt.Fprintf(w, " %.1f", s.GoodputPercent)
		}
		fmt.Fprintln(w)
	}
	if rep.SLO.Set() {
		if i := rep.FirstStageBelow(99); i >= 0 {
			s := rep.Stages[i]
			fmt.Fprintf(w, "SLO attainment first fell below 99%% in stage %d (planned %s): the load there is past what meets the SLOs\n", i+1, summary.RateText(s.PlannedRate))
		}
	}
	fmt.Fprintf(w, "(latency counts from the %s; the aggregate above mixes every stage's load)\n", rep.Basis)
}

// stageRate is a rate in the table: "burst" for all at once.
func stageRate(r float64) string {
	if math.IsInf(r, 1) {
		return "burst"
	}
	return fmt.Sprintf("%.1f", r)
}
