package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/cfgsweep"
)

// cfgPalette tells up to ten configurations' curves apart; more reuse it
// (the tooltips and the legend still name each).
var cfgPalette = []string{"#3060c0", "#d03030", "#20a040", "#e08000", "#8040c0", "#008080", "#c04080", "#606060", "#a0a000", "#4090e0"}

// WriteConfigSweepHTML writes a configuration sweep as one self-contained
// page: the table, the best configuration and why, each configuration's
// knee with its interval, and every configuration's throughput–latency
// curves on one chart (TTFT and TPOT at the tail percentile).
func WriteConfigSweepHTML(r *cfgsweep.Result, w io.Writer) error {
	var b strings.Builder
	h := func(s string) string { return esc(textfmt.Safe(s)) }
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>llm-prober bench: configuration sweep</title>
<style>body{font-family:sans-serif;margin:1.5em;max-width:1100px}table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}td.l,th.l{text-align:left}tr.failed td{color:#a00}
pre{background:#f6f6f6;padding:6px;overflow-x:auto;font-size:12px}.best{background:#eef6ee;padding:6px}</style></head><body>
`)
	fmt.Fprintf(&b, "<h1>Configuration sweep</h1>\n<p>%s: <code>%s</code></p>\n", map[string]string{"start": "Server command", "apply": "Apply command"}[r.Mode], h(r.Command))
	if r.Best != nil {
		fmt.Fprintf(&b, "<p class=\"best\" id=\"best\"><b>Best configuration: %s</b>: %s</p>\n", h(r.Best.Label), h(r.Best.Why))
	} else {
		b.WriteString("<p class=\"best\" id=\"best\">No configuration reached a knee.</p>\n")
	}
	tail := "p99"
	for _, row := range r.Rows {
		if row.Tail > 0 {
			tail = "p" + textfmt.PercentileName(row.Tail)
			break
		}
	}
	fmt.Fprintf(&b, "<table id=\"configurations\"><tr><th>#</th><th class=\"l\">configuration</th><th>KV blocks</th><th>block size</th><th>max conc.</th><th>knee req/s achieved</th><th>offered (95%% interval)</th><th>out tok/s</th><th>%s TTFT ms</th><th>%s TPOT ms</th><th class=\"l\">past the knee</th><th>GPUs</th><th class=\"l\">status</th></tr>\n", tail, tail)
	for i, row := range r.Rows {
		class := ""
		if row.Status != cfgsweep.StatusOK {
			class = ` class="failed"`
		}
		fmt.Fprintf(&b, "<tr%s><td>%d</td><td class=\"l\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"l\">%s</td><td>%s</td><td class=\"l\">%s</td></tr>\n",
			class, i+1, h(csLabel(row)), csCount(row.KVBlocks), csCount(row.BlockSize), csCount(row.MaxConcurrency), csKnee(row), csOffered(row),
			csNum(row.OutputThroughput, 0), csNum(row.TailTTFT, 1), csNum(row.TailTPOT, 1), h(csDash(row.Bottleneck)), csCount(row.GPUs), h(row.Status))
	}
	b.WriteString("</table>\n")
	if c := kneeChart(r); c != nil {
		b.WriteString("<h2>Knee per configuration</h2>\n" + c.svg())
	}
	b.WriteString("<h2>Throughput and latency, every configuration</h2>\n")
	for _, c := range cfgCurveCharts(r, tail) {
		b.WriteString(c.svg())
	}
	for i, row := range r.Rows {
		if row.Status == cfgsweep.StatusOK {
			continue
		}
		fmt.Fprintf(&b, "<h3>#%d %s: %s</h3>\n<p>%s", i+1, h(csLabel(row)), h(row.Status), h(row.Error))
		if row.ExitStatus != "" {
			fmt.Fprintf(&b, " (%s)", h(row.ExitStatus))
		}
		b.WriteString("</p>\n")
		if row.Command != "" {
			fmt.Fprintf(&b, "<p><code>%s</code></p>\n", h(row.Command))
		}
		if row.LogTail != "" {
			fmt.Fprintf(&b, "<pre>%s</pre>\n", h(row.LogTail))
		}
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// kneeChart is a bar per configuration (by its number in the table), its
// 95 % interval, and a dot for a lower bound; nil when none has either.
func kneeChart(r *cfgsweep.Result) *chart {
	c := newChart(900, 320, "Knee (offered req/s) per configuration, with its 95% interval")
	c.XLabel, c.YLabel = "configuration (# in the table)", "req/s"
	c.XMin, c.XMax, c.YMin = 0.4, float64(len(r.Rows))+0.6, 0
	c.XFmt = func(v float64) string {
		if v != math.Trunc(v) || v < 1 || int(v) > len(r.Rows) {
			return ""
		}
		return fmt.Sprintf("#%d", int(v))
	}
	drawn := false
	for i, row := range r.Rows {
		x := float64(i + 1)
		switch row.Status {
		case cfgsweep.StatusOK:
			c.Bars = append(c.Bars, chartBar{X0: x - 0.3, X1: x + 0.3, Y: row.KneeOffered})
			if row.KneeHigh > 0 {
				c.Errs = append(c.Errs, chartErr{X: x, Lo: row.KneeLow, Hi: row.KneeHigh})
			}
			drawn = true
		case cfgsweep.StatusLowerBound:
			c.Dots = append(c.Dots, chartDot{X: x, Y: row.LowerBound, Color: "#e08000", Title: fmt.Sprintf("#%d: knee above %.2f req/s", i+1, row.LowerBound)})
			drawn = true
		}
	}
	if !drawn {
		return nil
	}
	c.Legend = []chartKey{{"knee", "#6a8fd0"}, {"95% interval", "#333"}, {"knee above (a lower bound)", "#e08000"}}
	return c
}

// cfgCurveCharts are two panels, TTFT and TPOT at the tail against output
// throughput, a line per configuration through its points by load.
func cfgCurveCharts(r *cfgsweep.Result, tail string) []*chart {
	panels := []struct {
		name string
		y    func(cfgsweep.CurvePoint) float64
	}{
		{tail + " TTFT (ms, log scale)", func(p cfgsweep.CurvePoint) float64 { return p.TailTTFT }},
		{tail + " TPOT (ms, log scale)", func(p cfgsweep.CurvePoint) float64 { return p.TailTPOT }},
	}
	var out []*chart
	for _, pn := range panels {
		c := newChart(900, 380, pn.name)
		c.XLabel, c.YLabel, c.YLog, c.XMin = "output throughput (tok/s)", "ms", true, 0
		for i, row := range r.Rows {
			if len(row.Curve) == 0 {
				continue
			}
			color := cfgPalette[i%len(cfgPalette)]
			pts := slices.Clone(row.Curve)
			slices.SortStableFunc(pts, func(a, b cfgsweep.CurvePoint) int {
				switch {
				case a.OutputThroughput < b.OutputThroughput:
					return -1
				case a.OutputThroughput > b.OutputThroughput:
					return 1
				}
				return 0
			})
			var xy []float64
			for _, p := range pts {
				if p.OutputThroughput <= 0 || pn.y(p) <= 0 {
					continue
				}
				xy = append(xy, p.OutputThroughput, pn.y(p))
				c.Dots = append(c.Dots, chartDot{X: p.OutputThroughput, Y: pn.y(p), Color: color,
					Title: fmt.Sprintf("#%d %s, %s: %.2f req/s, %.1f%% good", i+1, textfmt.SafeLine(csLabel(row)), p.Kind, p.RequestRate, p.GoodputPercent)})
			}
			c.Lines = append(c.Lines, chartLine{Color: color, XY: xy, Width: 2})
			if row.Status == cfgsweep.StatusOK && row.OutputThroughput > 0 {
				c.VRules = append(c.VRules, chartRule{At: row.OutputThroughput, Label: fmt.Sprintf("#%d knee", i+1), Color: color})
			}
			c.Legend = append(c.Legend, chartKey{fit(fmt.Sprintf("#%d %s", i+1, textfmt.SafeLine(csLabel(row))), 400), color})
		}
		out = append(out, c)
	}
	return out
}
