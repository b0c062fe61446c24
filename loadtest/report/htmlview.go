package report

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// MaxTimelineRows caps the per-request timeline of the HTML report: past
// it, rows are sampled evenly (the page says so). Distributions and
// throughput use every request.
const MaxTimelineRows = 5000

// Bounds of the other drawn series, whatever the run's length.
const (
	maxBuckets   = 600 // throughput and concurrency over time
	cdfPoints    = 400
	histBins     = 40
	tlClassCount = 4
)

// Timeline row classes.
const (
	tlGood = iota
	tlMissed
	tlFailed
	tlCancelled
)

// RunView is what the HTML report draws of one run: bounded whatever the
// run's size, so that a sweep can keep one per point instead of the
// Points' records.
type RunView struct {
	Name    string // "" for a lone run; the point or run name otherwise
	Report  *summary.Report
	Server  serverwatch.ServerReport
	Verdict summary.Verdict
	Text    string            // the text report, as printed
	Errors  map[string]string // the first error message of each failure reason

	dists [4]dist // TTFT, TPOT, ITL, E2EL

	rows      []tlRow // sampled timeline, by send time
	rowsTotal int     // measured requests
	rowsSLO   bool    // colours say met/missed an SLO (else succeeded)

	bucket           time.Duration
	tokS, reqS, conc []float64 // per bucket from origin

	origin int64 // ns since the run's start: the first measured planned send
	start  time.Time
}

type dist struct {
	name  string
	slo   float64 // ms; 0 none
	count int
	exact bool
	logX  bool
	bars  []chartBar
	cdf   []float64 // x, y (%) pairs
}

type tlRow struct {
	planned, start, first, end float32 // seconds from origin; first 0 when no token came
	class                      uint8
}

// NewRunView summarises run for the HTML report; rep, srv and v are its
// report, server report and verdict.
func NewRunView(name string, run *loadtest.Run, rep *summary.Report, srv serverwatch.ServerReport, v summary.Verdict) *RunView {
	var text strings.Builder
	WriteText(rep, &text)
	WriteUncertainty(rep, &text)
	WriteServer(&srv, &text, v)
	rv := &RunView{Name: name, Report: rep, Server: srv, Verdict: v, Text: text.String(), Errors: map[string]string{}, start: run.Started}
	for r, msg := range run.Errors {
		rv.Errors[string(r)] = msg
	}
	var ttft, tpot, e2el []float64
	var meas []*loadtest.Record
	rv.origin = math.MaxInt64
	for i := range run.Records {
		rec := &run.Records[i]
		if rec.Warmup {
			continue
		}
		meas = append(meas, rec)
		rv.origin = min(rv.origin, rec.Planned)
		if rec.Success() {
			ttft = append(ttft, summary.Ms(rec.TTFT))
			e2el = append(e2el, summary.Ms(rec.E2EL))
			if rec.OutputTokens > 1 {
				tpot = append(tpot, summary.Ms(rec.TPOT))
			}
		}
	}
	if len(meas) == 0 {
		rv.origin = 0
	}
	slo := rep.SLO
	rv.dists[0] = exactDist("TTFT", ttft, float64(slo.TTFT)/1e6)
	rv.dists[1] = exactDist("TPOT", tpot, float64(slo.TPOT)/1e6)
	rv.dists[2] = histDist("ITL", &run.ITL)
	rv.dists[3] = exactDist("E2EL", e2el, float64(slo.E2EL)/1e6)
	rv.Timeline(meas, rep)
	rv.overTime(run, meas)
	return rv
}

// minDrawnMs is the smallest positive value a log axis starts at: tokens
// that came in one read are microseconds apart, not decades below the rest.
const minDrawnMs = 1e-3

// exactDist bins and cumulates values (ms); sorts them.
func exactDist(name string, vals []float64, slo float64) dist {
	slices.Sort(vals)
	d := dist{name: name, slo: slo, count: len(vals), exact: true}
	if len(vals) == 0 {
		return d
	}
	lo := vals[0]
	if i, _ := slices.BinarySearch(vals, minDrawnMs); i < len(vals) {
		lo = vals[i] // zeros go to the first bin of a log axis
	}
	d.fill(func(q float64) float64 { return stats.QuantileSorted(vals, q*100) }, lo, vals[len(vals)-1],
		func(each func(v float64, n uint64)) {
			for _, v := range vals {
				each(v, 1)
			}
		})
	return d
}

// histDist is the ITL histogram's distribution (its buckets' midpoints).
func histDist(name string, h *stats.Hist) dist {
	d := dist{name: name, count: int(h.N)}
	if h.N == 0 {
		return d
	}
	lo, hi := -1.0, 0.0
	for i, c := range h.Counts {
		if c > 0 && stats.BucketMid(i)/1e6 >= minDrawnMs { // zeros go to the first bin
			if lo < 0 {
				lo = stats.BucketMid(i) / 1e6
			}
			hi = stats.BucketMid(i) / 1e6
		}
	}
	if lo < 0 { // every gap under a microsecond
		lo, hi = 0, 0
	}
	d.fill(func(q float64) float64 { return h.Quantile(q * 100) }, lo, hi, func(each func(v float64, n uint64)) {
		for i, c := range h.Counts {
			if c > 0 {
				each(stats.BucketMid(i)/1e6, c)
			}
		}
	})
	return d
}

// fill draws the histogram (log-spaced bins when the values span more
// than a decade and a half) and the CDF at cdfPoints quantiles.
func (d *dist) fill(quantile func(q float64) float64, lo, hi float64, all func(func(float64, uint64))) {
	d.logX = lo > 0 && hi/lo > 30
	edge := func(i int) float64 {
		f := float64(i) / histBins
		if d.logX {
			return lo * math.Pow(hi/lo, f)
		}
		return lo + (hi-lo)*f
	}
	if hi <= lo {
		edge = func(i int) float64 { return lo - 0.5 + float64(i)/histBins }
	}
	counts := make([]uint64, histBins)
	all(func(v float64, n uint64) {
		var i int
		switch {
		case hi <= lo:
			i = histBins / 2
		case d.logX:
			i = int(math.Log(max(v, lo)/lo) / math.Log(hi/lo) * histBins)
		default:
			i = int((v - lo) / (hi - lo) * histBins)
		}
		counts[max(0, min(i, histBins-1))] += n
	})
	for i, c := range counts {
		if c > 0 {
			d.bars = append(d.bars, chartBar{X0: edge(i), X1: edge(i + 1), Y: float64(c)})
		}
	}
	for k := 0; k <= cdfPoints; k++ {
		q := float64(k) / cdfPoints
		d.cdf = append(d.cdf, quantile(q), 100*q)
	}
}

// Timeline samples the measured requests by send time and classes them
// by the report's goodput basis.
func (rv *RunView) Timeline(meas []*loadtest.Record, rep *summary.Report) {
	recs := slices.Clone(meas)
	slices.SortFunc(recs, func(a, b *loadtest.Record) int { return stats.CmpFloat(float64(a.Start), float64(b.Start)) })
	rv.rowsTotal = len(recs)
	rv.rowsSLO = rep.SLO.Set()
	n := min(len(recs), MaxTimelineRows)
	sec := func(ns int64) float32 { return float32(float64(ns-rv.origin) / 1e9) }
	for k := range n {
		rec := recs[k*len(recs)/n]
		var wait int64
		if rep.Basis == summary.BasisSchedule {
			wait = rec.Start - rec.Planned
		}
		row := tlRow{planned: sec(rec.Planned), start: sec(rec.Start), end: sec(rec.BusyUntil()), class: tlGood}
		if rec.TTFT > 0 {
			row.first = sec(rec.Start + rec.TTFT)
		}
		switch {
		case rec.Cancelled():
			row.class = tlCancelled
		case !rec.Success():
			row.class = tlFailed
		case rv.rowsSLO && !summary.Good(rec, rep.SLO, wait):
			row.class = tlMissed
		}
		rv.rows = append(rv.rows, row)
	}
}

// round2 rounds d to two significant digits of milliseconds (504.021437ms
// is 500ms): a bucket a reader can name.
func round2(d time.Duration) time.Duration {
	ms := float64(d) / 1e6
	if ms < 10 {
		return d.Round(time.Millisecond)
	}
	p := math.Pow(10, math.Floor(math.Log10(ms))-1)
	return time.Duration(math.Round(ms/p) * p * 1e6)
}

// fmtDuration prints d for a caption: "500 ms", "1.5 s", "2 min".
func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/1e6, 'g', 3, 64) + " ms"
	case d < 2*time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'g', 3, 64) + " s"
	}
	return strconv.FormatFloat(d.Minutes(), 'g', 3, 64) + " min"
}

// overTime buckets output tokens, completions and requests in flight
// from the first measured planned send.
func (rv *RunView) overTime(run *loadtest.Run, meas []*loadtest.Record) {
	var end int64
	for _, rec := range meas {
		end = max(end, rec.BusyUntil())
	}
	span := end - rv.origin
	if len(meas) == 0 || span <= 0 {
		return
	}
	rv.bucket = time.Second
	if n := time.Duration(span) / maxBuckets; n > rv.bucket {
		rv.bucket = n.Round(time.Second) + time.Second
	}
	if time.Duration(span) < 20*time.Second { // short runs: finer than a second
		rv.bucket = max(round2(time.Duration(span)/20), time.Millisecond)
	}
	bw := int64(rv.bucket)
	nb := int(span/bw) + 1
	rv.tokS, rv.reqS, rv.conc = make([]float64, nb), make([]float64, nb), make([]float64, nb)
	for msec, c := range run.TokensPerMs {
		if t := int64(msec)*int64(time.Millisecond) - rv.origin; c > 0 && t >= 0 && t/bw < int64(nb) {
			rv.tokS[t/bw] += float64(c)
		}
	}
	for _, rec := range meas {
		a, b := rec.Start-rv.origin, rec.BusyUntil()-rv.origin
		if rec.Success() && b/bw < int64(nb) && b >= 0 {
			rv.reqS[b/bw]++
		}
		for i := max(a, 0) / bw; i < int64(nb) && i*bw < b; i++ {
			lo, hi := max(a, i*bw), min(b, (i+1)*bw)
			if hi > lo {
				rv.conc[i] += float64(hi-lo) / float64(bw)
			}
		}
	}
	s := rv.bucket.Seconds()
	for i := range rv.tokS {
		rv.tokS[i] /= s
		rv.reqS[i] /= s
	}
}
