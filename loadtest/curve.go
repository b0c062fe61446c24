package loadtest

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"
)

// WriteSVG draws the sweep as a self-contained SVG: TTFT and TPOT at the
// Tail percentile (p99 unless not asked for) against output token throughput, one dot per run (green if its goodput
// met the target), the Pareto frontier as a line and the knee marked.
func (s *Sweep) WriteSVG(w io.Writer, title string) error {
	const W, H, panelH, left, right, top = 760, 620, 240, 70, 20, 50
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="40" fill="#444">%s</text>`+"\n", left, html.EscapeString("knee: "+s.KneeSummary()))
	pts := make([]*Point, 0, len(s.Points))
	for _, p := range s.Points {
		if p.Report.Completed > 0 {
			pts = append(pts, p)
		}
	}
	xmax := 0.0
	for _, p := range pts {
		xmax = max(xmax, p.Report.OutputThroughput)
	}
	xmax = niceCeil(xmax)
	frontier := map[*Point]bool{}
	for _, p := range s.Frontier() {
		frontier[p] = true
	}
	tail := s.Tail()
	pn := "p" + PercentileName(tail)
	panels := []panel{
		{pn + " TTFT (ms, log scale)", func(r *Report) float64 { return r.TTFT.Value(tail) }, func(s SLO) time.Duration { return s.TTFT }},
		{pn + " TPOT (ms, log scale)", func(r *Report) float64 { return r.TPOT.Value(tail) }, func(s SLO) time.Duration { return s.TPOT }},
	}
	for i, pn := range panels {
		y0 := top + 20 + i*(panelH+60)
		// Latencies span decades (a saturated run's TTFT is seconds): log scale.
		ymin, ymax := math.Inf(1), 0.0
		for _, p := range pts {
			if v := pn.y(p.Report); v > 0 {
				ymin, ymax = min(ymin, v), max(ymax, v)
			}
		}
		if slo := pn.slo(pts); slo > 0 {
			ymin, ymax = min(ymin, slo), max(ymax, slo)
		}
		if ymax <= 0 {
			ymin, ymax = 1, 10
		}
		lo, hi := math.Floor(math.Log10(ymin)), math.Ceil(math.Log10(ymax))
		if hi <= lo {
			hi = lo + 1
		}
		px := func(x float64) float64 { return left + (W-left-right)*x/xmax }
		py := func(y float64) float64 {
			v := (math.Log10(max(y, math.Pow(10, lo))) - lo) / (hi - lo)
			return float64(y0+panelH) - panelH*v
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", left, y0, W-left-right, panelH)
		for d := lo; d <= hi; d++ {
			for _, m := range []float64{1, 2, 5} {
				gy := m * math.Pow(10, d)
				if gy > math.Pow(10, hi) {
					break
				}
				fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n", left-6, py(gy)+4, fmtTick(gy))
				fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", left, W-right, py(gy), py(gy))
			}
		}
		for k := 0; k <= 4; k++ {
			gx := xmax * float64(k) / 4
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", px(gx), y0+panelH+16, fmtTick(gx))
		}
		if slo := pn.slo(pts); slo > 0 {
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e08000" stroke-dasharray="3,3"/>`+"\n", left, W-right, py(slo), py(slo))
			fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#e08000">SLO %s ms</text>`+"\n", W-right-4, py(slo)-4, fmtTick(slo))
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", left+6, y0+16, pn.name)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">output throughput (tok/s)</text>`+"\n", (W+left)/2, y0+panelH+32)
		var line []string
		for _, p := range s.Frontier() {
			line = append(line, fmt.Sprintf("%.1f,%.1f", px(p.Report.OutputThroughput), py(pn.y(p.Report))))
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#3060c0" stroke-width="2"/>`+"\n", strings.Join(line, " "))
		if s.Knee != nil {
			kx := px(s.Knee.Report.OutputThroughput)
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#d03030" stroke-dasharray="5,4"/>`+"\n", kx, kx, y0, y0+panelH)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#d03030">knee %.2f req/s</text>`+"\n", kx+4, y0+30, s.KneeRate())
		}
		for _, p := range pts {
			color := "#c03030"
			if p.Good(s.KneeGoodput) {
				color = "#20a040"
			}
			stroke := ""
			if frontier[p] {
				stroke = ` stroke="#3060c0" stroke-width="1.5"`
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5" fill="%s"%s><title>%s: %.2f req/s, %.2f%% good</title></circle>`+"\n",
				px(p.Report.OutputThroughput), py(pn.y(p.Report)), color, stroke, html.EscapeString(pointName(p)), p.Report.RequestThroughput, p.Report.GoodputPercent)
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555">green: ≥ %g%% of requests met every SLO; red: fewer. Blue line: Pareto frontier.</text>`+"\n", left, H-12, s.KneeGoodput)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

type panel struct {
	name  string
	y     func(*Report) float64
	sloOf func(SLO) time.Duration
}

// slo is the panel's objective in ms (0 if not set).
func (pn panel) slo(pts []*Point) float64 {
	if len(pts) == 0 {
		return 0
	}
	return float64(pn.sloOf(pts[0].Report.SLO)) / 1e6
}

func pointName(p *Point) string {
	switch p.Kind {
	case PointSync:
		return "synchronous"
	case PointMax:
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
