package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// runsCharts draw --num-runs: for each metric, every run's value and the
// mean with its interval beside them, so that a run far from the others
// (a host-load episode, a cold cache) is seen, not averaged away.
func runsCharts(s *summary.RunsSummary) []template.HTML {
	var out []template.HTML
	for _, r := range s.Rows {
		if len(r.Values) == 0 {
			continue
		}
		n := len(r.Values)
		c := newChart(370, 260, strings.TrimSuffix(summary.MetricLabel(r.Key, r.Unit), " ("+r.Unit+")"))
		c.XLabel, c.YLabel = "run", r.Unit
		c.XMin, c.XMax = 0, float64(n+2)
		c.XFmt = func(v float64) string {
			switch {
			case v == float64(n+1):
				return "mean"
			case v >= 1 && v <= float64(n) && v == math.Trunc(v):
				return fmt.Sprintf("%.0f", v)
			}
			return ""
		}
		for i, v := range r.Values {
			c.Dots = append(c.Dots, chartDot{X: float64(i + 1), Y: v, Color: "#3060c0", Title: fmt.Sprintf("run %d: %.4g %s", i+1, v, r.Unit)})
		}
		if r.Mean != nil {
			title := fmt.Sprintf("mean %.4g %s", *r.Mean, r.Unit)
			if r.CILow != nil && r.CIHigh != nil {
				c.Errs = []chartErr{{X: float64(n + 1), Lo: *r.CILow, Hi: *r.CIHigh}}
				title += fmt.Sprintf(", 95%% interval %.4g–%.4g", *r.CILow, *r.CIHigh)
			}
			c.Dots = append(c.Dots, chartDot{X: float64(n + 1), Y: *r.Mean, Color: "#222222", Title: title})
		}
		c.Legend = []chartKey{{"each run", "#3060c0"}, {"mean, 95% interval", "#222222"}}
		if n < 5 {
			c.Note = fmt.Sprintf("%d runs: a weak interval", n)
		}
		out = append(out, trusted(c))
	}
	return out
}
