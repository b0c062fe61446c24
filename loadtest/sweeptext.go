package loadtest

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// WriteText prints the sweep table, one row per run in rate order, and
// the knee.
func (s *Sweep) WriteText(w io.Writer) {
	fmt.Fprintln(w, center(" Rate sweep ", '='))
	tail := s.Tail()
	pn := "p" + PercentileName(tail)
	fmt.Fprintf(w, "%-15s %9s %9s %10s %8s %10s %10s %10s %7s  %s\n",
		"run", "offered", "req/s", "out tok/s", "good %", pn+" TTFT", pn+" TPOT", pn+" E2EL", "failed", "bottleneck")
	pts := append([]*Point(nil), s.Points...)
	order := func(p *Point) float64 {
		switch p.Kind {
		case PointSync:
			return -1
		case PointMax:
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
		case PointSync:
			offered = "1 user"
		case PointMax:
			offered = "inf"
		}
		mark := ""
		if p == s.Knee {
			mark = "  <- knee"
		}
		fmt.Fprintf(w, "%-15s %9s %9.2f %10.0f %8.2f %10.1f %10.1f %10.1f %7d  %s%s\n",
			p.Kind, offered, r.RequestThroughput, r.OutputThroughput, r.GoodputPercent,
			r.TTFT.Value(tail), r.TPOT.Value(tail), r.E2EL.Value(tail), r.Failed, p.Verdict, mark)
	}
	fmt.Fprintf(w, "Knee (goodput ≥ %g%%): %s\n", s.KneeGoodput, s.KneeSummary())
	if s.FirstBad != nil {
		fmt.Fprintf(w, "First rate past it: %.2f req/s (%.2f%% good, p99 TTFT %.0f ms)\n",
			s.FirstBad.Rate, s.FirstBad.Report.GoodputPercent, s.FirstBad.Report.TTFT.Value(99))
	}
	if s.Prompts != "" {
		fmt.Fprintf(w, "Prompts: %s\n", s.Prompts)
	}
	fmt.Fprintln(w, strings.Repeat("=", 50))
}
