package report

import (
	"fmt"
	"html"
	"math"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// chart is the one SVG chart helper of the curve and the HTML report: axes
// with ticks, lines, dots, bars, error bars, rules (SLOs, the knee) and a
// legend. Margins are sized from the labels so that nothing falls outside
// the viewBox: the lower axis, its label and the legend included.
type chart struct {
	W, H           int // the whole SVG; the plot is what the labels leave
	Title          string
	XLabel, YLabel string
	XLog, YLog     bool
	// XMin..YMax fix the axes; NaN (see newChart) fits the data.
	XMin, XMax, YMin, YMax float64
	XFmt                   func(float64) string // tick text; fmtTick if nil

	Lines  []chartLine
	Dots   []chartDot
	Bars   []chartBar
	Errs   []chartErr
	Segs   []chartSegs
	HRules []chartRule // horizontal: a y value (an SLO on a latency axis)
	VRules []chartRule // vertical: an x value (an SLO on a CDF, the knee)
	Legend []chartKey
	Note   string // a line under the legend

	// MinRight is the least right margin: panels that share an x axis
	// align whatever their rule labels.
	MinRight, MinLeft float64
	left              float64 // the left margin of the last svg()

	vrow []vplace // where the VRules' labels go
}

type chartLine struct {
	Color string
	XY    []float64 // x0, y0, x1, y1, …
	Width float64
	Dash  bool
}

type chartDot struct {
	X, Y          float64
	Color, Stroke string
	Title         string
}

type chartBar struct{ X0, X1, Y float64 }

// chartErr is a vertical interval at X (a confidence interval).
type chartErr struct{ X, Lo, Hi float64 }

// chartSegs are horizontal segments in one colour (the timeline's rows):
// X0, X1, Y triples, drawn as one path.
type chartSegs struct {
	Color string
	Width float64
	XXY   []float64
}

type chartRule struct {
	At    float64
	Label string
	Color string
}

type chartKey struct{ Name, Color string }

const (
	chartFont  = 12
	chartCharW = 0.62 * chartFont // wide enough for DejaVu Sans, the widest common sans-serif
	chartLineH = 16
)

func newChart(w, h int, title string) *chart {
	n := math.NaN()
	return &chart{W: w, H: h, Title: title, XMin: n, XMax: n, YMin: n, YMax: n}
}

// textW estimates a label's width in pixels at the chart's font size.
func textW(s string) float64 { return float64(utf8.RuneCountInString(s)) * chartCharW }

// extent is the data's range on one axis, padded to nice values; dataHi
// is the data's own top, when the axis end is fitted to it (linear, not
// fixed), else NaN.
func (c *chart) extent(x bool) (lo, hi, dataHi float64) {
	dataHi = math.NaN()
	lo, hi = math.Inf(1), math.Inf(-1)
	add := func(v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || (v <= 0 && ((x && c.XLog) || (!x && c.YLog))) {
			return
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	for _, l := range c.Lines {
		for i := 0; i+1 < len(l.XY); i += 2 {
			add(pick(x, l.XY[i], l.XY[i+1]))
		}
	}
	for _, d := range c.Dots {
		add(pick(x, d.X, d.Y))
	}
	for _, b := range c.Bars {
		if x {
			add(b.X0)
			add(b.X1)
		} else {
			add(b.Y)
		}
	}
	for _, e := range c.Errs {
		if x {
			add(e.X)
		} else {
			add(e.Lo)
			add(e.Hi)
		}
	}
	for _, s := range c.Segs {
		for i := 0; i+2 < len(s.XXY); i += 3 {
			if x {
				add(s.XXY[i])
				add(s.XXY[i+1])
			} else {
				add(s.XXY[i+2])
			}
		}
	}
	rules := c.HRules
	if x {
		rules = c.VRules
	}
	for _, r := range rules {
		add(r.At)
	}
	fixLo, fixHi := pick(x, c.XMin, c.YMin), pick(x, c.XMax, c.YMax)
	if !math.IsNaN(fixLo) {
		lo = fixLo
	}
	if !math.IsNaN(fixHi) {
		hi = fixHi
	}
	log := pick(x, c.XLog, c.YLog)
	switch {
	case math.IsInf(lo, 1) || math.IsInf(hi, -1):
		lo, hi = 0, 1
		if log {
			lo, hi = 1, 10
		}
	case log:
		lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
		if hi <= lo {
			hi = lo * 10
		}
	default:
		if math.IsNaN(fixLo) {
			lo = min(lo, 0)
		}
		if math.IsNaN(fixHi) && hi > lo {
			// The next multiple of a nice step (a fifth of the range,
			// rounded up): 23 s ends at 25, not at niceCeil's 50. A step
			// is at most half the range, so the end is under 1.5× the data.
			dataHi = hi
			step := niceCeil((hi - lo) / 5)
			hi = math.Ceil(hi/step-1e-9) * step
		}
		if hi <= lo { // lo + 1 is lo itself past 2^53
			hi = lo + max(1, math.Abs(lo))
		}
	}
	return lo, hi, dataHi
}

func pick[T any](x bool, a, b T) T {
	if x {
		return a
	}
	return b
}

// ticks are the axis's labelled values: 1-2-5 per decade on a log axis,
// else about n evenly spaced nice values.
func ticks(lo, hi float64, log bool, n int) []float64 {
	var out []float64
	if log {
		decades := math.Log10(hi / lo)
		ms := []float64{1, 2, 5}
		if decades*3 > float64(n) {
			ms = []float64{1}
		}
		step := max(1, int(math.Ceil(decades/float64(max(n, 1)))))
		for d := math.Log10(lo); d <= math.Log10(hi)+1e-9; d += float64(step) {
			for _, m := range ms {
				if v := m * math.Pow(10, d); v <= hi*(1+1e-9) {
					out = append(out, v)
				}
			}
		}
		return out
	}
	step := niceCeil((hi - lo) / float64(max(n, 1)))
	most := n + 2
	// Prefer a finer nice step that lands on both ends (extent ends a
	// fitted axis on one): an unlabelled top reads as a lower one.
	for s := step; (hi-lo)/s <= float64(2*n+2) && s > 1e-9*max(math.Abs(lo), math.Abs(hi)); s = niceBelow(s) {
		if onGrid(lo, s) && onGrid(hi, s) {
			step, most = s, 2*n+3
			break
		}
	}
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9 && len(out) < most; k++ {
		out = append(out, k*step+0) // +0: no "-0"; k*step: no drift, no stall at 1e17
	}
	return out
}

// svg renders the chart.
func (c *chart) svg() string {
	xlo, xhi, xdata := c.extent(true)
	ylo, yhi, ydata := c.extent(false)
	yt := ticks(ylo, yhi, c.YLog, max(2, (c.H-120)/40))
	xf := c.XFmt
	if xf == nil {
		xf = fmtTick
	}
	tickW := 0.0
	for _, v := range yt {
		tickW = max(tickW, textW(fmtTick(v)))
	}
	ruleW := 0.0
	for _, r := range c.HRules {
		ruleW = max(ruleW, textW(r.Label))
	}
	// Legend rows, wrapped to the width.
	var rows [][]chartKey
	x := 0.0
	for _, k := range c.Legend {
		w := 18 + textW(k.Name) + 14
		if len(rows) == 0 || x+w > float64(c.W-20) {
			rows = append(rows, nil)
			x = 0
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], k)
		x += w
	}
	left := math.Ceil(max(tickW+12, textW(c.YLabel)/2, 40, c.MinLeft))
	c.left = left
	right := math.Ceil(max(16, ruleW+10, c.MinRight))
	vrows := c.vruleRows(xlo, xhi, left, float64(c.W)-right)
	// Title (baseline 18), the y axis's label (36), the rows of the
	// vertical rules' labels, half a tick label; below the plot the tick
	// labels (+18), the axis label (+34), the legend's rows.
	top := 52 + float64(vrows)*chartLineH
	bottom := 38 + float64(len(rows))*chartLineH + 6
	if c.Note != "" {
		bottom += chartLineH
	}
	pw, ph := float64(c.W)-left-right, float64(c.H)-top-bottom
	// Server-supplied text (an error in a note) can be any length.
	c.Title, c.Note = fit(c.Title, float64(c.W)-left-4), fit(c.Note, float64(c.W)-left-4)
	if ph < 40 { // grow rather than squash
		c.H += int(40 - ph)
		ph = 40
	}
	px := func(v float64) float64 { return left + pw*scale(v, xlo, xhi, c.XLog) }
	py := func(v float64) float64 { return top + ph - ph*scale(v, ylo, yhi, c.YLog) }

	var b strings.Builder
	// data-xmax/ymax: the data's top where the axis is fitted to it, for
	// the layout check (an axis far past its data).
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="%d"%s%s>`+"\n",
		c.W, c.H, c.W, c.H, chartFont, dataAttr("xmax", xdata), dataAttr("ymax", ydata))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", c.W, c.H)
	fmt.Fprintf(&b, `<text x="%g" y="18" font-weight="bold">%s</text>`+"\n", left, esc(c.Title))
	if c.YLabel != "" {
		fmt.Fprintf(&b, `<text x="%g" y="36" fill="#444">%s</text>`+"\n", max(left-tickW-8, 4), esc(c.YLabel))
	}
	// Grid and ticks.
	for _, v := range yt {
		y := py(v)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#eee"/>`, left, left+pw, y, y)
		fmt.Fprintf(&b, `<text class="ytick" x="%.1f" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n", left-6, y+4, fmtTick(v))
	}
	xw := 0.0
	for _, v := range ticks(xlo, xhi, c.XLog, 8) {
		xw = max(xw, textW(xf(v)))
	}
	xt := ticks(xlo, xhi, c.XLog, max(2, int(pw/(xw+16))))
	for _, v := range xt {
		x := px(v)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#eee"/>`, x, x, top, top+ph)
		anchor := "middle"
		if x+textW(xf(v))/2 > float64(c.W)-2 {
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text class="xtick" x="%.1f" y="%.1f" text-anchor="%s" fill="#555">%s</text>`+"\n", x, top+ph+18, anchor, esc(xf(v)))
	}
	fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999"/>`+"\n", left, top, pw, ph)
	if c.XLabel != "" {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#444">%s</text>`+"\n", left+pw/2, top+ph+34, esc(c.XLabel))
	}
	// Data, clipped to the plot.
	id := fmt.Sprintf("p%x", chartSeq.Add(1))
	fmt.Fprintf(&b, `<clipPath id="%s"><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f"/></clipPath><g clip-path="url(#%s)">`+"\n", id, left, top, pw, ph, id)
	if len(c.Bars) > 0 {
		b.WriteString(`<path fill="#6a8fd0" fill-opacity="0.75" d="`)
		for _, r := range c.Bars {
			x0, x1, y := px(r.X0), px(r.X1), py(r.Y)
			fmt.Fprintf(&b, "M%.1f %.1fH%.1fV%.1fH%.1fZ", x0, top+ph, x1, y, x0)
		}
		b.WriteString(`"/>` + "\n")
	}
	for _, s := range c.Segs {
		fmt.Fprintf(&b, `<path fill="none" stroke="%s" stroke-width="%g" d="`, s.Color, max(s.Width, 1))
		for i := 0; i+2 < len(s.XXY); i += 3 {
			fmt.Fprintf(&b, "M%.1f %.1fH%.1f", px(s.XXY[i]), py(s.XXY[i+2]), px(s.XXY[i+1]))
		}
		b.WriteString(`"/>` + "\n")
	}
	for _, l := range c.Lines {
		var pts []string
		for i := 0; i+1 < len(l.XY); i += 2 {
			if ok(l.XY[i], c.XLog) && ok(l.XY[i+1], c.YLog) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(l.XY[i]), py(l.XY[i+1])))
			}
		}
		dash := ""
		if l.Dash {
			dash = ` stroke-dasharray="4,3"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%g"%s/>`+"\n", strings.Join(pts, " "), l.Color, max(l.Width, 1.5), dash)
	}
	for _, e := range c.Errs {
		if ok(e.X, c.XLog) && ok(e.Lo, c.YLog) && ok(e.Hi, c.YLog) {
			x := px(e.X)
			fmt.Fprintf(&b, `<path stroke="#333" fill="none" d="M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f"/>`+"\n",
				x, py(e.Lo), py(e.Hi), x-4, py(e.Lo), x+4, x-4, py(e.Hi), x+4)
		}
	}
	for _, d := range c.Dots {
		if !ok(d.X, c.XLog) || !ok(d.Y, c.YLog) {
			continue
		}
		stroke := ""
		if d.Stroke != "" {
			stroke = fmt.Sprintf(` stroke="%s" stroke-width="1.5"`, d.Stroke)
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5" fill="%s"%s><title>%s</title></circle>`+"\n", px(d.X), py(d.Y), d.Color, stroke, esc(d.Title))
	}
	b.WriteString("</g>\n")
	// Rules: lines across the plot, labels in the margins (never on the data).
	for _, r := range c.HRules {
		if !ok(r.At, c.YLog) {
			continue
		}
		y := py(r.At)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="5,4"/>`, left, left+pw, y, y, r.Color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", left+pw+4, y+4, r.Color, esc(r.Label))
	}
	c.writeVRules(&b, xlo, xhi, left, pw, top, ph)
	// Legend.
	ly := top + ph + 38
	for _, row := range rows {
		ly += chartLineH
		x := left
		for _, k := range row {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="12" height="10" fill="%s"/>`, x, ly-9, k.Color)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", x+16, ly, esc(k.Name))
			x += 18 + textW(k.Name) + 14
		}
	}
	if c.Note != "" {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#555">%s</text>`+"\n", left, ly+chartLineH, esc(c.Note))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// vruleRows places the vertical rules' labels above the plot, a row down
// where one would run into the last: how many rows they need.
func (c *chart) vruleRows(xlo, xhi, left, rightEdge float64) int {
	rows := 0
	c.vrow = c.vrow[:0]
	var ends []float64 // per row, the right end of its last label
	for i := range c.VRules {
		r := &c.VRules[i]
		x := left + (rightEdge-left)*scale(r.At, xlo, xhi, c.XLog)
		x0 := min(x, float64(c.W)-2-textW(r.Label))
		x0 = max(x0, 2)
		row := 0
		for row < len(ends) && ends[row] > x0-6 {
			row++
		}
		if row == len(ends) {
			ends = append(ends, 0)
		}
		ends[row] = x0 + textW(r.Label)
		c.vrow = append(c.vrow, vplace{x0, row})
		rows = max(rows, row+1)
	}
	return rows
}

type vplace struct {
	x   float64
	row int
}

func (c *chart) writeVRules(b *strings.Builder, xlo, xhi, left, pw, top, ph float64) {
	for i, r := range c.VRules {
		if !ok(r.At, c.XLog) || r.At < xlo || r.At > xhi {
			continue
		}
		x := left + pw*scale(r.At, xlo, xhi, c.XLog)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="5,4"/>`, x, x, top, top+ph, r.Color)
		p := c.vrow[i]
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", p.x, top-12-float64(p.row)*chartLineH, r.Color, esc(r.Label))
	}
}

// niceBelow is the nice value (1, 2 or 5 times a power of ten) below s.
func niceBelow(s float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(s)+1e-9))
	switch m := s / e; {
	case m > 4.5:
		return 2 * e
	case m > 1.5:
		return e
	}
	return e / 2
}

func onGrid(v, s float64) bool {
	q := v / s
	return math.Abs(q-math.Round(q)) < 1e-6
}

func scale(v, lo, hi float64, log bool) float64 {
	if log {
		return (math.Log10(max(v, lo)) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
	}
	return (v - lo) / (hi - lo)
}

// ok reports whether v can be drawn on the axis.
func ok(v float64, log bool) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!log || v > 0)
}

// fit shortens s with an ellipsis to about w pixels.
func fit(s string, w float64) string {
	n := int(w / chartCharW)
	if utf8.RuneCountInString(s) <= n || n < 1 {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func esc(s string) string { return html.EscapeString(s) }

func dataAttr(name string, v float64) string {
	if math.IsNaN(v) || v <= 0 {
		return ""
	}
	return fmt.Sprintf(` data-%s="%g"`, name, v)
}

// chartSeq numbers clip paths: several charts share one HTML page.
var chartSeq atomic.Uint64
