package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// WriteSweep prints the sweep table, one row per run in rate order, and
// the knee.
func WriteSweep(s *sweep.Sweep, w io.Writer) {
	fmt.Fprintln(w, textfmt.Center(" Rate sweep ", '='))
	tail := s.Tail()
	pn := "p" + textfmt.PercentileName(tail)
	fmt.Fprintf(w, "%-15s %9s %9s %10s %8s %10s %10s %10s %7s  %s\n",
		"run", "offered", "req/s", "out tok/s", "good %", pn+" TTFT", pn+" TPOT", pn+" E2EL", "failed", "bottleneck")
	pts := append([]*sweep.Point(nil), s.Points...)
	order := func(p *sweep.Point) float64 {
		switch p.Kind {
		case sweep.PointSync:
			return -1
		case sweep.PointMax:
			return math.MaxFloat64
		}
		return p.Rate
	}
	for i := 1; i < len(pts); i++ {
		for j := i; j > 0 && order(pts[j]) < order(pts[j-1]); j-- {
			pts[j], pts[j-1] = pts[j-1], pts[j]
		}
	}
	for _, p := range pts {
		r := p.Report
		offered := fmt.Sprintf("%.2f", p.Rate)
		switch p.Kind {
		case sweep.PointSync:
			offered = "1 user"
		case sweep.PointMax:
			offered = "inf"
		}
		mark := ""
		switch p {
		case s.Knee:
			mark = "  <- knee"
		case s.Above:
			mark = "  <- knee above (lower bound)"
		}
		fmt.Fprintf(w, "%-15s %9s %9.2f %10.0f %8.2f %10.1f %10.1f %10.1f %7d  %s%s\n",
			p.Kind, offered, r.RequestThroughput, r.OutputThroughput, r.GoodputPercent,
			r.TTFT.Value(tail), r.TPOT.Value(tail), r.E2EL.Value(tail), r.Failed, p.Verdict, mark)
	}
	writeUncertainty(s, w, pts)
	fmt.Fprintf(w, "Knee (SLO attainment ≥ %g%%): %s\n", s.KneeGoodput, s.KneeSummary())
	if s.Knee != nil || s.Above != nil {
		fmt.Fprintf(w, "%s\n", s.KneeCIText())
	}
	if m := s.Monotonicity(); m != "" {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	if s.FirstBad != nil {
		fmt.Fprintf(w, "First rate past it: %.2f req/s (%.2f%% good, p99 TTFT %.0f ms)\n",
			s.FirstBad.Rate, s.FirstBad.Report.GoodputPercent, s.FirstBad.Report.TTFT.Value(99))
	}
	if s.Prompts != "" {
		fmt.Fprintf(w, "Prompts: %s\n", s.Prompts)
	}
	fmt.Fprintln(w, strings.Repeat("=", 50))
}

// writeUncertainty prints each point's p99 confidence intervals and the
// percentiles that rest on too few samples.
func writeUncertainty(s *sweep.Sweep, w io.Writer, pts []*sweep.Point) {
	fmt.Fprintf(w, "p99 %.0f%% confidence intervals, ms (batch means over each point's requests; sampling error only):\n", stats.CILevel*100)
	ci := ciText
	var warn []string
	for _, p := range pts {
		r := p.Report
		fmt.Fprintf(w, "  %-25s n=%-6d TTFT %s, TPOT %s, E2EL %s\n", pointName(p)+":", r.Completed+r.Failed, ci(r.TTFT), ci(r.TPOT), ci(r.E2EL))
		for _, m := range r.SampleWarnings() {
			warn = append(warn, pointName(p)+": "+m)
		}
		if m := r.CutShortWarning(); m != "" {
			warn = append(warn, pointName(p)+": "+m)
		}
	}
	for _, m := range warn {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}
