package report

import (
	"bufio"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/llm-prober/llm-prober/capacity"
	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// HTMLReport is bench --report's page: one self-contained file (inline
// CSS and SVG, no script, nothing fetched at view time) with a lone run,
// repeated runs, or a sweep with its knee's run.
type HTMLReport struct {
	Title string
	// Runs are drawn in full: the run, each of --num-runs, or a sweep's
	// knee (or its best point without one).
	Runs []*RunView
	// RunsSummary is --num-runs' mean and interval per metric.
	RunsSummary *summary.RunsSummary
	Sweep       *sweep.Sweep
	Plan        *capacity.Plan
	// Compare is `bench compare --report`'s comparison of two runs.
	Compare *CompareView
}

//go:embed htmlreport.tmpl
var htmlReportSrc string

var htmlReportTmpl = template.Must(template.New("report").Parse(htmlReportSrc))

// Write renders the page. html/template escapes markup, not control
// bytes: the page goes through textfmt.SafeWriter, so a model name or a
// server's error with ESC in it shows as "\x1b", never raw.
func (h *HTMLReport) Write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := htmlReportTmpl.Execute(textfmt.NewSafeWriter(bw), h.page()); err != nil {
		return err
	}
	return bw.Flush()
}

type htmlPage struct {
	Title      string
	Sweep      *htmlSweep
	Summary    string // --num-runs
	RunsCharts []template.HTML
	Compare    *htmlCompare
	Runs       []htmlRun
}

type htmlSweep struct {
	Knee, KneeCI string
	Curve        []template.HTML
	Header       []string
	Rows         [][]string
	Plan         string
}

type htmlRun struct {
	Name, Verdict, Summary string
	Evidence               []string
	Facts                  [][2]string
	StatsHead              []string
	Stats                  [][]string
	BucketsHead            []string
	Buckets                [][]string // SLO attainment by input tokens
	Errors                 [][2]string
	Dists                  [][2]template.HTML
	Timeline               template.HTML
	Tput, Conc, KV, Queue  template.HTML
	Text                   string
}

func (h *HTMLReport) page() htmlPage {
	p := htmlPage{Title: h.Title}
	if h.Sweep != nil {
		p.Sweep = sweepPage(h.Sweep, h.Plan)
	}
	if h.RunsSummary != nil {
		var b strings.Builder
		WriteRuns(h.RunsSummary, &b)
		p.Summary = b.String()
		p.RunsCharts = runsCharts(h.RunsSummary)
	}
	if h.Compare != nil {
		p.Compare = h.Compare.page()
	}
	for _, rv := range h.Runs {
		p.Runs = append(p.Runs, rv.page())
	}
	return p
}

func sweepPage(s *sweep.Sweep, plan *capacity.Plan) *htmlSweep {
	hs := &htmlSweep{Knee: s.KneeSummary()}
	if s.Knee != nil || s.Above != nil {
		hs.KneeCI = s.KneeCIText()
	}
	if m := s.Monotonicity(); m != "" {
		hs.KneeCI += "; warning: " + m
	}
	for _, c := range curveCharts(s, 2*chartW+20, 340) {
		hs.Curve = append(hs.Curve, trusted(c))
	}
	pn := "p" + textfmt.PercentileName(s.Tail())
	hs.Header = []string{"point", "offered req/s", "achieved req/s", "output tok/s", "SLO attainment %", pn + " TTFT ms", "p99 TTFT 95% CI", pn + " TPOT ms", "p99 TPOT 95% CI", "bottleneck"}
	for _, pt := range byLoad(s.Points) {
		r := pt.Report
		offered := "—"
		if pt.OpenLoop() {
			offered = fmt.Sprintf("%.2f", pt.Rate)
		}
		name := pointName(pt)
		switch pt {
		case s.Knee:
			name += " (knee)"
		case s.Above:
			name += " (knee above: lower bound)"
		}
		hs.Rows = append(hs.Rows, []string{name, offered, fmt.Sprintf("%.2f", r.RequestThroughput), fmt.Sprintf("%.0f", r.OutputThroughput),
			fmt.Sprintf("%.2f", r.GoodputPercent), fmt.Sprintf("%.1f", r.TTFT.Value(s.Tail())), ciText(r.TTFT),
			fmt.Sprintf("%.2f", r.TPOT.Value(s.Tail())), ciText(r.TPOT), pt.Verdict})
	}
	if plan != nil {
		var b strings.Builder
		plan.WriteText(&b)
		hs.Plan = b.String()
	}
	return hs
}

// byLoad orders a sweep's points by the load offered, not by when they ran
// (a refinement runs last but lies between two rates): synchronous first,
// then the rates ascending, everything-at-once last.
func byLoad(pts []*sweep.Point) []*sweep.Point {
	key := func(p *sweep.Point) float64 {
		switch p.Kind {
		case sweep.PointSync:
			return -1
		case sweep.PointMax:
			return math.Inf(1)
		}
		return p.Rate
	}
	out := slices.Clone(pts)
	slices.SortStableFunc(out, func(a, b *sweep.Point) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// offeredText is what the run asked of the server: the open loop's rate
// (and its burstiness and cap) or the closed loop's users.
func offeredText(rep *summary.Report) string {
	if rep.Mode == "closed-loop" {
		return fmt.Sprintf("closed loop: %d concurrent users", rep.MaxConcurrency)
	}
	s := "as fast as possible (rate inf)"
	if !math.IsInf(rep.Rate, 1) {
		s = fmt.Sprintf("%.2f req/s offered (burstiness %g)", rep.Rate, rep.Burstiness)
	}
	if rep.MaxConcurrency > 0 {
		s += fmt.Sprintf(", at most %d in flight", rep.MaxConcurrency)
	}
	return s
}

func (rv *RunView) page() htmlRun {
	rep := rv.Report
	hr := htmlRun{Name: rv.Name, Verdict: rv.Verdict.Bottleneck, Summary: rv.Verdict.Summary, Evidence: rv.Verdict.Evidence, Text: rv.Text}
	fact := func(k, v string) { hr.Facts = append(hr.Facts, [2]string{k, v}) }
	fact("Latency basis", "from the "+rep.Basis+" ("+rep.BasisReason+")")
	if rep.SLO.Set() {
		fact("SLOs (--goodput, ms)", rep.SLO.String())
		fact("SLO attainment", fmt.Sprintf("%.2f%% of requests met every SLO", rep.GoodputPercent))
		fact("Goodput", fmt.Sprintf("%.2f good req/s", rep.GoodputRate))
		var missed []string
		for _, n := range summary.SLONames {
			if k := rep.MissedBy[n]; k > 0 {
				missed = append(missed, fmt.Sprintf("%s %d", n, k))
			}
		}
		if len(missed) > 0 {
			fact("Requests that missed", strings.Join(missed, ", "))
		}
	} else {
		fact("SLO attainment", "no SLOs given (--goodput)")
	}
	fact("Offered load", offeredText(rep))
	fact("Requests", fmt.Sprintf("%d succeeded, %d failed, %d cancelled, %d warm-up", rep.Completed, rep.Failed, rep.Cancelled, rep.Warmup))
	fact("Request throughput", fmt.Sprintf("%.2f req/s over %.2f s", rep.RequestThroughput, rep.Duration.Seconds()))
	fact("Output throughput", fmt.Sprintf("%.2f tok/s (peak %.0f)", rep.OutputThroughput, rep.PeakOutputThroughput))
	fact("Concurrency", fmt.Sprintf("peak %d in flight, mean %.2f", rep.PeakInFlight, rep.MeanConcurrency))
	hr.StatsHead = []string{"metric (ms)", "count", "mean", "median"}
	ps := rep.TTFT.Percentiles
	for _, p := range ps {
		hr.StatsHead = append(hr.StatsHead, "p"+textfmt.PercentileName(p.P))
	}
	hr.StatsHead = append(hr.StatsHead, "p99 95% CI (this run's sampling error only)")
	for _, m := range []struct {
		name string
		s    stats.Stats
	}{{"TTFT", rep.TTFT}, {"TPOT", rep.TPOT}, {"ITL", rep.ITL}, {"E2EL", rep.E2EL}, {"max ITL (worst gap per request)", rep.MaxITL}} {
		if strings.HasPrefix(m.name, "max") && m.s.Count == 0 {
			continue
		}
		row := []string{m.name, fmt.Sprint(m.s.Count), fmt.Sprintf("%.2f", m.s.Mean), fmt.Sprintf("%.2f", m.s.Median)}
		for _, p := range ps {
			row = append(row, fmt.Sprintf("%.2f", m.s.Value(p.P)))
		}
		ci := "n/a"
		if m.name != "ITL" {
			ci = ciText(m.s)
		}
		hr.Stats = append(hr.Stats, append(row, ci))
	}
	if len(rep.InputBuckets) > 0 {
		hr.BucketsHead = []string{"input tokens", "requests", "good", "SLO attainment %", "TTFT p50 ms", "TTFT p99 ms", "TTFT SLO ms", "TTFT from the"}
		for _, b := range rep.InputBuckets {
			hr.Buckets = append(hr.Buckets, []string{BucketName(b), fmt.Sprint(b.Requests), fmt.Sprint(b.Good), fmt.Sprintf("%.2f", b.Percent),
				fmt.Sprintf("%.2f", b.TTFT.Median), fmt.Sprintf("%.2f", b.TTFT.Value(99)), BucketTTFTSLO(rep.SLO, b), rep.Basis})
		}
	}
	reasons := make([]string, 0, len(rv.Errors))
	for r := range rv.Errors {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	for _, r := range reasons {
		hr.Errors = append(hr.Errors, [2]string{r, rv.Errors[r]})
	}
	for i := range rv.dists {
		h, c := rv.dists[i].charts()
		hr.Dists = append(hr.Dists, [2]template.HTML{h, c})
	}
	hr.Timeline = rv.timelineChart()
	hr.Tput, hr.Conc = rv.throughputCharts()
	hr.KV, hr.Queue = rv.serverCharts()
	return hr
}
