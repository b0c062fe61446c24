package report

import (
	"fmt"
	"html/template"
	"math"

	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

const (
	chartW      = 560
	chartH      = 300
	colorGood   = "#2a9d4a"
	colorMissed = "#d0502a"
	colorFailed = "#666666"
	colorCancel = "#b0a040"
	colorSLO    = "#e08000"
)

// trusted marks the helper's output, whose every string is escaped, as
// HTML for the page's template.
func trusted(c *chart) template.HTML { return template.HTML(c.svg()) } //nolint:gosec // chart escapes every text it writes

// distCharts are a metric's histogram and CDF, its SLO drawn on both.
func (d *dist) charts() (hist, cdf template.HTML) {
	unit := "ms"
	if d.logX {
		unit = "ms, log scale"
	}
	note := fmt.Sprintf("%d requests", d.count)
	if !d.exact {
		note = fmt.Sprintf("%d gaps, from a histogram within %.2f%%", d.count, 100*stats.HistRelError)
	}
	h := newChart(chartW, chartH, d.name+" histogram")
	h.XLabel, h.YLabel, h.XLog, h.Note = d.name+" ("+unit+")", "requests", d.logX, note
	if !d.exact {
		h.YLabel = "gaps"
	}
	h.Bars = d.bars
	c := newChart(chartW, chartH, d.name+" CDF")
	c.XLabel, c.YLabel, c.XLog, c.Note = d.name+" ("+unit+")", "% at or below", d.logX, note
	c.YMin, c.YMax = 0, 100
	c.Lines = []chartLine{{Color: "#3060c0", XY: d.cdf}}
	if d.slo > 0 {
		r := chartRule{At: d.slo, Label: "SLO " + fmtTick(d.slo) + " ms", Color: colorSLO}
		h.VRules, c.VRules = []chartRule{r}, []chartRule{r}
	}
	if d.count == 0 {
		h.Note, c.Note = "no samples", "no samples"
	}
	return trusted(h), trusted(c)
}

// timelineChart draws every sampled request as a row: a thin line while it
// waited in the client, then TTFT, then decode, coloured by outcome.
func (rv *RunView) timelineChart() template.HTML {
	c := newChart(2*chartW+20, 420, "Requests over time (send → first token → end)")
	c.XLabel, c.YLabel = "seconds since the first planned send", "request # by send time (first at the bottom)"
	c.XMin = 0
	c.YMin, c.YMax = 0, float64(max(len(rv.rows), 1))
	width := math.Max(1, math.Min(6, 300/float64(max(len(rv.rows), 1))))
	colors := [tlClassCount][2]string{
		tlGood:      {"#9fd8ae", colorGood},
		tlMissed:    {"#f0b49c", colorMissed},
		tlFailed:    {"#bbbbbb", colorFailed},
		tlCancelled: {"#e0d890", colorCancel},
	}
	var prefill, decode [tlClassCount][]float64
	var waits []float64
	for i, r := range rv.rows {
		// Request #1 at y = 1: the axis's numbers are the rows' (the first
		// sent was drawn at the top, against an axis rising upward).
		y := float64(i + 1)
		if r.start-r.planned > 0.001 {
			waits = append(waits, float64(r.planned), float64(r.start), y)
		}
		if r.first > 0 {
			prefill[r.class] = append(prefill[r.class], float64(r.start), float64(r.first), y)
			decode[r.class] = append(decode[r.class], float64(r.first), float64(r.end), y)
		} else {
			prefill[r.class] = append(prefill[r.class], float64(r.start), float64(r.end), y)
		}
	}
	if len(waits) > 0 {
		c.Segs = append(c.Segs, chartSegs{Color: "#999999", Width: 1, XXY: waits})
	}
	for k := range tlClassCount {
		c.Segs = append(c.Segs, chartSegs{Color: colors[k][0], Width: width, XXY: prefill[k]},
			chartSegs{Color: colors[k][1], Width: width, XXY: decode[k]})
	}
	good := "succeeded"
	if rv.rowsSLO {
		good = "met every SLO"
	}
	c.Legend = []chartKey{{"to first token: light; decode: dark", "#cccccc"}, {good, colorGood}}
	if rv.rowsSLO {
		c.Legend = append(c.Legend, chartKey{"missed an SLO", colorMissed})
	}
	c.Legend = append(c.Legend, chartKey{"failed", colorFailed}, chartKey{"cancelled", colorCancel}, chartKey{"queued in the client", "#999999"})
	c.Note = fmt.Sprintf("%d of %d measured requests drawn", len(rv.rows), rv.rowsTotal)
	if len(rv.rows) < rv.rowsTotal {
		c.Note += fmt.Sprintf(" (evenly sampled past %d; the distributions use all)", MaxTimelineRows)
	}
	return trusted(c)
}

// throughputCharts are output tokens/s, and completions/s with the mean
// requests in flight, per bucket.
func (rv *RunView) throughputCharts() (tput, conc template.HTML) {
	bs := rv.bucket.Seconds()
	xs := func(vals []float64) []float64 {
		out := make([]float64, 0, 2*len(vals))
		for i, v := range vals {
			out = append(out, (float64(i)+0.5)*bs, v)
		}
		return out
	}
	t := newChart(chartW, chartH, "Output throughput over time")
	t.XLabel, t.YLabel, t.XMin = "seconds since the first planned send", "tok/s", 0
	t.Lines = []chartLine{{Color: "#3060c0", XY: xs(rv.tokS)}}
	t.Note = "per " + fmtDuration(rv.bucket) + " bucket"
	c := newChart(chartW, chartH, "Concurrency and completions over time")
	c.XLabel, c.YLabel, c.XMin = "seconds since the first planned send", "requests", 0
	c.Lines = []chartLine{{Color: "#8040a0", XY: xs(rv.conc)}, {Color: colorGood, XY: xs(rv.reqS), Dash: true}}
	c.Legend = []chartKey{{"in flight (mean per bucket)", "#8040a0"}, {"completed per second", colorGood}}
	if len(rv.tokS) == 0 {
		t.Note, c.Note = "no measured requests", "no measured requests"
	}
	return trusted(t), trusted(c)
}

// serverCharts are the server's KV-cache usage, and its running, waiting
// and preempted requests, over the run.
func (rv *RunView) serverCharts() (kv, queue template.HTML) {
	k := newChart(chartW, chartH, "Server KV-cache usage")
	k.XLabel, k.YLabel = "seconds since the first planned send", "% used"
	k.YMin, k.YMax = 0, 100
	q := newChart(chartW, chartH, "Server requests and preemptions")
	q.XLabel, q.YLabel = "seconds since the first planned send", "requests"
	var kvXY, run, wait, pre []float64
	base := math.NaN()
	for _, s := range rv.Server.Series {
		x := s.At.Sub(rv.start).Seconds() - float64(rv.origin)/1e9
		if math.IsNaN(base) {
			base = s.Preemptions
		}
		kvXY = append(kvXY, x, 100*s.KVUsage)
		run, wait, pre = append(run, x, s.Running), append(wait, x, s.Waiting), append(pre, x, s.Preemptions-base)
	}
	k.Lines = []chartLine{{Color: "#3060c0", XY: peaks(kvXY)}}
	q.Lines = []chartLine{{Color: "#3060c0", XY: peaks(run)}, {Color: colorMissed, XY: peaks(wait)}, {Color: "#8040a0", XY: peaks(pre), Dash: true}}
	q.Legend = []chartKey{{"running", "#3060c0"}, {"waiting", colorMissed}, {"preemptions since the first scrape", "#8040a0"}}
	if len(rv.Server.Series) == 0 {
		why := "no server metrics"
		if rv.Server.Err != "" {
			why += ": " + rv.Server.Err
		}
		k.Note, q.Note = why, why
	} else {
		k.Note = fmt.Sprintf("%d scrapes drawn (at most %d)", len(rv.Server.Series), serverwatch.MaxServerSamples)
	}
	return trusted(k), trusted(q)
}

// maxDrawn is the most points a line of the server's series draws: a
// chart is 500 pixels wide.
const maxDrawn = 1000

// peaks thins x, y pairs to maxDrawn, keeping each window's highest y
// (a saturated second must not vanish between two drawn ones).
func peaks(xy []float64) []float64 {
	n := len(xy) / 2
	if n <= maxDrawn {
		return xy
	}
	out := make([]float64, 0, 2*maxDrawn)
	for w := range maxDrawn {
		lo, hi := w*n/maxDrawn, (w+1)*n/maxDrawn
		best := lo
		for i := lo; i < hi; i++ {
			if xy[2*i+1] > xy[2*best+1] {
				best = i
			}
		}
		out = append(out, xy[2*best], xy[2*best+1])
	}
	return out
}
