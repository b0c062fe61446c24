package report

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest/compare"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
)

// CompareView is `bench compare --report`'s content: the comparison and
// the two runs' requests, whose latency CDFs it draws one over the other.
type CompareView struct {
	Comparison *compare.Comparison
	Base, New  *resultfile.RunFile
}

type htmlCompare struct {
	Base, New   string
	Verdict     string
	Notes       []string
	Header      []string
	Rows        [][]string
	CDFs        []template.HTML
	Text        string
	Regressions bool
}

const (
	colorBase = "#3060c0"
	colorNew  = "#d0502a"
)

func (cv *CompareView) page() *htmlCompare {
	c := cv.Comparison
	hc := &htmlCompare{Base: c.Base, New: c.New, Notes: append(slices.Clone(c.WorkloadDiffs), c.Notes...), Regressions: len(c.Regressions) > 0,
		Header: []string{"metric", "base", "new", "change", "test", "p", "significant", "threshold", "regression"}}
	hc.Verdict = "no significant regression beyond --max-regression"
	if hc.Regressions {
		hc.Verdict = "regression: " + strings.Join(c.Regressions, ", ")
	}
	num := func(f *float64, format string) string {
		if f == nil {
			return "—"
		}
		return fmt.Sprintf(format, *f)
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return ""
	}
	for _, r := range c.Rows {
		hc.Rows = append(hc.Rows, []string{r.Label(), num(r.Base, "%.2f"), num(r.New, "%.2f"), num(r.DeltaPercent, "%+.1f%%"),
			r.Test, num(r.PValue, "%.3g"), yes(r.Significant), r.Threshold, yes(r.Regression)})
	}
	if cv.Base != nil && cv.New != nil { // --num-runs summaries carry no requests to draw
		hc.CDFs = requestCDFs(cv.Base, cv.New)
	}
	var b strings.Builder
	c.WriteText(&b)
	hc.Text = b.String()
	return hc
}

// empiricalCDF is the empirical CDF of vs (ms) as x, y (%) pairs, at most
// maxDrawn of them.
func empiricalCDF(vs []float64) []float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return nil
	}
	m := min(n, maxDrawn)
	out := make([]float64, 0, 2*m)
	for k := range m {
		i := (k+1)*n/m - 1
		out = append(out, s[i], 100*float64(i+1)/float64(n))
	}
	return out
}

// requestCDFs draws the runs' per-request latencies over each other.
func requestCDFs(base, nw *resultfile.RunFile) []template.HTML {
	var cdfs []template.HTML
	for _, f := range []struct {
		name      string
		base, new []float64
	}{{"TTFT", base.TTFT, nw.TTFT}, {"TPOT", base.TPOT, nw.TPOT},
		{"E2EL", base.E2EL, nw.E2EL}, {"ITL (each request's mean gap)", base.ITLMean, nw.ITLMean}} {
		ch := newChart(chartW, chartH, f.name+" CDF, base and new")
		ch.XLabel, ch.YLabel, ch.XMin = f.name+" (ms)", "% at or below", 0
		ch.YMin, ch.YMax = 0, 100
		ch.Lines = []chartLine{{Color: colorBase, XY: empiricalCDF(f.base)}, {Color: colorNew, XY: empiricalCDF(f.new)}}
		ch.Legend = []chartKey{{fmt.Sprintf("base (%d requests)", len(f.base)), colorBase}, {fmt.Sprintf("new (%d requests)", len(f.new)), colorNew}}
		if len(f.base)+len(f.new) == 0 {
			ch.Note = "no samples"
		}
		cdfs = append(cdfs, trusted(ch))
	}
	return cdfs
}
