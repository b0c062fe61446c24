package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// WriteSweepSVG draws the sweep as a self-contained SVG: TTFT and TPOT at the
// Tail percentile (p99 unless not asked for) against output token throughput, one dot per run (green if its goodput
// met the target), the Pareto frontier as a line and the knee marked.
func WriteSweepSVG(s *sweep.Sweep, w io.Writer, title string) error {
	const W = 760
	charts := curveCharts(s, W, 300)
	var b strings.Builder
	knee := wrapText("knee: "+s.KneeSummary(), W-20)
	head := 30 + chartLineH*len(knee)
	h := head
	svgs := make([]string, len(charts))
	for i, c := range charts {
		svgs[i] = c.svg() // may grow c.H
		h += c.H
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, h, W, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="15" font-weight="bold">%s</text>`+"\n", esc(title))
	for i, l := range knee {
		fmt.Fprintf(&b, `<text x="10" y="%d" fill="#444">%s</text>`+"\n", 40+i*chartLineH, esc(l))
	}
	y := head
	for i, c := range charts {
		fmt.Fprintf(&b, `<svg x="0" y="%d"%s`, y, strings.TrimPrefix(svgs[i], "<svg"))
		y += c.H
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// curveCharts are the sweep's two panels, TTFT and TPOT at the Tail
// percentile against output throughput, with each point's p99 interval
// when the tail is p99.
func curveCharts(s *sweep.Sweep, w, h int) []*chart {
	pts := make([]*sweep.Point, 0, len(s.Points))
	for _, p := range s.Points {
		if p.Report.Completed > 0 {
			pts = append(pts, p)
		}
	}
	frontier := map[*sweep.Point]bool{}
	for _, p := range s.Frontier() {
		frontier[p] = true
	}
	tail := s.Tail()
	pn := "p" + textfmt.PercentileName(tail)
	panels := []panel{
		{pn + " TTFT (ms, log scale)", func(r *summary.Report) float64 { return r.TTFT.Value(tail) }, func(s summary.SLO) time.Duration { return s.TTFT }},
		{pn + " TPOT (ms, log scale)", func(r *summary.Report) float64 { return r.TPOT.Value(tail) }, func(s summary.SLO) time.Duration { return s.TPOT }},
	}
	ci := []func(*summary.Report) stats.Stats{func(r *summary.Report) stats.Stats { return r.TTFT }, func(r *summary.Report) stats.Stats { return r.TPOT }}
	out := make([]*chart, 0, len(panels))
	for i, pn := range panels {
		c := newChart(w, h, pn.name)
		c.XLabel, c.YLabel, c.YLog = "output throughput (tok/s)", "ms", true
		c.XMin = 0
		if slo := pn.slo(pts); slo > 0 {
			c.HRules = append(c.HRules, chartRule{At: slo, Label: "SLO " + fmtTick(slo) + " ms", Color: "#e08000"})
		}
		if s.Knee != nil {
			c.VRules = append(c.VRules, chartRule{At: s.Knee.Report.OutputThroughput, Label: fmt.Sprintf("knee %.0f tok/s (%.2f req/s)", s.Knee.Report.OutputThroughput, s.KneeRate()), Color: "#d03030"})
		}
		if s.Above != nil {
			c.VRules = append(c.VRules, chartRule{At: s.Above.Report.OutputThroughput, Label: fmt.Sprintf("knee above %.2f req/s", s.Above.Rate), Color: "#d03030"})
		}
		var line []float64
		for _, p := range s.Frontier() {
			line = append(line, p.Report.OutputThroughput, pn.y(p.Report))
		}
		c.Lines = append(c.Lines, chartLine{Color: "#3060c0", XY: line, Width: 2})
		for _, p := range pts {
			color := "#c03030"
			if p.Good(s.KneeGoodput) {
				color = "#20a040"
			}
			stroke := ""
			if frontier[p] {
				stroke = "#3060c0"
			}
			if st := ci[i](p.Report); tail == 99 && !math.IsNaN(st.P99Low) && !math.IsInf(st.P99High, 0) && st.Count >= 2 {
				c.Errs = append(c.Errs, chartErr{X: p.Report.OutputThroughput, Lo: st.P99Low, Hi: st.P99High})
			}
			c.Dots = append(c.Dots, chartDot{X: p.Report.OutputThroughput, Y: pn.y(p.Report), Color: color, Stroke: stroke,
				Title: fmt.Sprintf("%s: %.2f req/s, %.2f%% good", pointName(p), p.Report.RequestThroughput, p.Report.GoodputPercent)})
		}
		c.Legend = []chartKey{{fmt.Sprintf("≥ %g%% of requests met every SLO", s.KneeGoodput), "#20a040"}, {"fewer", "#c03030"}, {"Pareto frontier", "#3060c0"}}
		if tail == 99 {
			c.Legend = append(c.Legend, chartKey{"p99 95% CI", "#333"})
		}
		out = append(out, c)
	}
	// The panels share the x axis's pixels: the widest margins of both.
	left, right := 0.0, 0.0
	for _, c := range out {
		c.svg() // lays it out
		left = max(left, c.left)
		for _, r := range c.HRules {
			right = max(right, textW(r.Label)+10)
		}
	}
	for _, c := range out {
		c.MinLeft, c.MinRight = left, right
	}
	return out
}

type panel struct {
	name  string
	y     func(*summary.Report) float64
	sloOf func(summary.SLO) time.Duration
}

// slo is the panel's objective in ms (0 if not set).
func (pn panel) slo(pts []*sweep.Point) float64 {
	if len(pts) == 0 {
		return 0
	}
	return float64(pn.sloOf(pts[0].Report.SLO)) / 1e6
}

func pointName(p *sweep.Point) string {
	switch p.Kind {
	case sweep.PointSync:
		return "synchronous"
	case sweep.PointMax:
		return "max throughput"
	}
	return fmt.Sprintf("%.2f req/s offered", p.Rate)
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}

func fmtTick(v float64) string {
	if v >= 100 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// wrapText breaks s at spaces into lines of about w pixels.
func wrapText(s string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && textW(line+" "+word) > float64(w) {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(out, fit(line, float64(w)))
}
