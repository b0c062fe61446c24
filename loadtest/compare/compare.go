package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// CompareKeys are the metric keys --max-regression accepts.
func CompareKeys() []string {
	var out []string
	for _, m := range summary.Metrics() {
		out = append(out, m.Key)
	}
	return out
}

// CompareRow is one metric of two runs. Pointers are nil where a value
// does not exist (a percentile the run did not report, no SLO set).
type CompareRow struct {
	Key          string   `json:"key"`
	Unit         string   `json:"unit"`
	Base         *float64 `json:"base"`
	New          *float64 `json:"new"`
	Delta        *float64 `json:"delta"`
	DeltaPercent *float64 `json:"delta_percent"`
	// Test is batch-means (latencies of single runs), welch-t
	// (--num-runs summaries: across the runs' values), two-proportion
	// (shares of single runs), or none (one number per run: nothing to
	// test it against).
	Test   string   `json:"test"`
	PValue *float64 `json:"p_value"`
	// CILow, CIHigh bound the difference (new − base) at the
	// comparison's confidence.
	CILow       *float64 `json:"ci_low,omitempty"`
	CIHigh      *float64 `json:"ci_high,omitempty"`
	Significant bool     `json:"significant"`
	Worse       bool     `json:"worse"`
	Threshold   string   `json:"threshold,omitempty"`
	// Regression: worse beyond the threshold and significant (a metric
	// without a test: beyond the threshold).
	Regression  bool `json:"regression"`
	higherWorse bool
}

// Comparison is `bench compare`'s result.
type Comparison struct {
	Base          string   `json:"base"`
	New           string   `json:"new"`
	Alpha         float64  `json:"alpha"`
	WorkloadDiffs []string `json:"workload_differences,omitempty"`
	Notes         []string `json:"notes,omitempty"` // differences that do not stop a comparison
	Forced        bool     `json:"forced,omitempty"`
	// Mode is "runs" (two --num-runs summaries, tested across runs) or
	// "single" (two single runs, tested across their requests).
	Mode         string `json:"mode"`
	BaseRuns     int    `json:"base_runs"`
	NewRuns      int    `json:"new_runs"`
	BaseRequests int    `json:"base_requests"`
	NewRequests  int    `json:"new_requests"`
	// BaseSendLagP99, NewSendLagP99: each run's p99 send lag in ms (how
	// late the client sent): a client that lagged in one run only makes
	// the runs differ for a reason that is not the server.
	BaseSendLagP99 []float64    `json:"base_send_lag_p99_ms"`
	NewSendLagP99  []float64    `json:"new_send_lag_p99_ms"`
	Warnings       []string     `json:"warnings"`
	Rows           []CompareRow `json:"metrics"`
	Regressions    []string     `json:"regressions"`
}

// singleRunWarning says what a comparison of two single runs cannot know.
const singleRunWarning = "run-to-run variation is unknown: each side is one run, and runs of the same configuration " +
	"differ (host load, server state, the prompts drawn) by more than their requests' noise; the tests cover the " +
	"requests' noise only. Compare two --num-runs summaries (5 runs or more each) to test across runs"

// Compare compares new against base at significance level alpha and
// checks the thresholds (keys from ParseThresholds).
func Compare(base, nw *resultfile.RunFile, alpha float64, ts []Threshold) *Comparison {
	c := &Comparison{Base: base.Path, New: nw.Path, Alpha: alpha, WorkloadDiffs: resultfile.WorkloadDiffs(base, nw),
		Notes: resultfile.InfoDiffs(base, nw), Mode: "single", BaseRuns: 1, NewRuns: 1,
		BaseRequests: base.Measured, NewRequests: nw.Measured, Regressions: []string{},
		BaseSendLagP99: lagP99(base), NewSendLagP99: lagP99(nw), Warnings: []string{singleRunWarning}}
	if base.GapsDropped || nw.GapsDropped {
		c.Warnings = append(c.Warnings, fmt.Sprintf("ITL untested: a file holds over %d inter-token gaps, too many to keep", resultfile.MaxGaps))
	}
	rows := c.newRows()
	for _, f := range summary.CompareFamilies {
		compareLatency(rows, base, nw, f, alpha)
	}
	rows["output_throughput"].set(base.Float("output_throughput"), nw.Float("output_throughput"))
	rows["request_throughput"].set(base.Float("request_throughput"), nw.Float("request_throughput"))
	if base.SLO.Set() && nw.SLO.Set() {
		rows["goodput"].setShares(base.Good, base.Measured, nw.Good, nw.Measured)
	}
	rows["failed_percent"].setShares(base.Failed, base.Measured, nw.Failed, nw.Measured)
	c.finish(rows, ts)
	return c
}

// newRows makes a row per metric, untested, and indexes them by key.
func (c *Comparison) newRows() map[string]*CompareRow {
	ms := summary.Metrics()
	c.Rows = make([]CompareRow, 0, len(ms)) // rows points into it: no reallocation
	rows := map[string]*CompareRow{}
	for _, m := range ms {
		c.Rows = append(c.Rows, CompareRow{Key: m.Key, Unit: m.Unit, Test: "none", higherWorse: m.HigherWorse})
		rows[m.Key] = &c.Rows[len(c.Rows)-1]
	}
	return rows
}

// finish judges every row and applies the thresholds.
func (c *Comparison) finish(rows map[string]*CompareRow, ts []Threshold) {
	for i := range c.Rows {
		c.Rows[i].judge(c.Alpha)
	}
	for _, t := range ts {
		if msg := rows[t.Key].Check(t); msg != "" {
			c.Regressions = append(c.Regressions, msg)
		}
	}
}

// lagP99 is rf's p99 send lag as a one-element list (none in closed loop).
func lagP99(rf *resultfile.RunFile) []float64 {
	if len(rf.SendLag) == 0 {
		return []float64{}
	}
	return []float64{stats.QuantileSorted(sortedCopy(rf.SendLag), 99)}
}

// latencyStats are the statistics of CompareStats as BatchDiffs reads
// them: −1 for the mean, else the percentile.
var latencyStats = []float64{-1, 50, 90, 99}

// compareLatency fills the rows of latency family f (ttft, tpot, itl,
// e2el, max_itl): values, and the batch-means test of each difference
// over the requests in time order (ITL: over their pooled gaps, so a
// tail-only stall moves p99 ITL's test, not just its value; max_itl:
// over each request's worst gap, a value per request like TTFT).
func compareLatency(rows map[string]*CompareRow, base, nw *resultfile.RunFile, f string, alpha float64) {
	var diffs []stats.QuantileDiff
	if ga, gb := grouped(base, f), grouped(nw, f); ga != nil && gb != nil {
		diffs = stats.BatchDiffs(ga, gb, latencyStats, alpha)
	}
	a, b := sortedCopy(samples(base, f)), sortedCopy(samples(nw, f))
	for i, s := range summary.CompareStats {
		r := rows[s+"_"+f+"_ms"]
		if f == "itl" { // the run's ITL is over every gap: its aggregate keys
			r.set(itlValue(base, r.Key), itlValue(nw, r.Key))
		} else {
			r.set(sortedStat(a, s), sortedStat(b, s))
		}
		if diffs != nil && !math.IsNaN(diffs[i].Lo) {
			q := diffs[i]
			r.Test, r.PValue, r.CILow, r.CIHigh = "batch-means", summary.Num(q.PValue), summary.Num(q.Lo), summary.Num(q.Hi)
		}
	}
}

// samples is family f's per-request values of rf, in time order.
func samples(rf *resultfile.RunFile, f string) []float64 {
	switch f {
	case "ttft":
		return rf.TTFT
	case "tpot":
		return rf.TPOT
	case "e2el":
		return rf.E2EL
	case "max_itl":
		return rf.MaxITL
	}
	return rf.ITLMean
}

// grouped is family f of rf as the batch-means test reads it: a value per
// request, or for ITL each request's gaps; nil without two requests (or
// with the gaps dropped).
func grouped(rf *resultfile.RunFile, f string) *stats.Grouped {
	if f != "itl" {
		if len(samples(rf, f)) < 2 {
			return nil
		}
		return stats.GroupedOf(samples(rf, f))
	}
	if len(rf.GapCounts) < 2 {
		return nil
	}
	g, at := &stats.Grouped{}, 0
	buf := []float64{}
	for _, c := range rf.GapCounts {
		buf = buf[:0]
		for _, v := range rf.Gaps[at : at+int(c)] {
			buf = append(buf, float64(v))
		}
		at += int(c)
		g.Add(buf...)
	}
	return g
}

// setShares sets a share of requests (k of n, in %) and its test.
func (r *CompareRow) setShares(k1, n1, k2, n2 int) {
	r.set(summary.Pct(k1, n1), summary.Pct(k2, n2))
	_, p := stats.TwoProportion(k1, n1, k2, n2)
	r.Test, r.PValue = "two-proportion", summary.Num(p)
}

// Check applies threshold t to r: a sentence if it is a regression.
func (r *CompareRow) Check(t Threshold) string {
	r.Threshold = t.String()
	switch {
	case r.Base != nil && r.New == nil:
		// Nothing left to measure (every request failed) is worse than
		// any threshold, not a metric to skip.
		r.Regression = true
		return fmt.Sprintf("%s: %s → none: the new run has no request to measure it on (limit %s)", r.Key, textfmt.FmtNum(r.Base), t)
	case r.beyond(t) && (r.Significant || r.Test == "none"):
		r.Regression = true
		return fmt.Sprintf("%s: %s → %s (%s, limit %s)", r.Key, textfmt.FmtNum(r.Base), textfmt.FmtNum(r.New), r.deltaText(), t)
	}
	return ""
}

// sortedStat is statistic s (mean, p50, …) of sorted x, none for an
// empty sample (an all-failed run is not fast).
func sortedStat(x []float64, s string) float64 {
	switch {
	case len(x) == 0:
		return math.NaN()
	case s == "mean":
		m, _ := stats.MeanStd(x)
		return m
	}
	return stats.QuantileSorted(x, must(strconv.ParseFloat(s[1:], 64)))
}

// itlValue is ITL key k of rf: its aggregate key, none when no request
// had an inter-token gap (the run writes 0s then).
func itlValue(rf *resultfile.RunFile, k string) float64 {
	if len(rf.ITLMean) == 0 {
		return math.NaN()
	}
	return rf.Float(k)
}

func must(f float64, _ error) float64 { return f }

func sortedCopy(x []float64) []float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y
}

func (r *CompareRow) set(base, nw float64) {
	r.Base, r.New = summary.Num(base), summary.Num(nw)
	if r.Base != nil && r.New != nil {
		r.Delta = summary.Num(nw - base)
		if base != 0 {
			r.DeltaPercent = summary.Num(100 * (nw - base) / math.Abs(base))
		}
	}
}

// judge sets Worse and Significant.
func (r *CompareRow) judge(alpha float64) {
	if r.Delta == nil {
		return
	}
	r.Worse = (*r.Delta > 0) == r.higherWorse && *r.Delta != 0
	switch {
	case r.CILow != nil || r.CIHigh != nil || r.Test == "batch-means":
		// The interval at 1 − alpha leaves out 0 (a nil end: unbounded).
		r.Significant = (r.CILow != nil && *r.CILow > 0) || (r.CIHigh != nil && *r.CIHigh < 0)
	case r.PValue != nil:
		r.Significant = *r.PValue < alpha
	}
}

// beyond reports whether r got worse by more than t allows.
func (r *CompareRow) beyond(t Threshold) bool {
	if !r.Worse {
		return false
	}
	if t.Relative {
		return r.DeltaPercent != nil && math.Abs(*r.DeltaPercent) > t.Value
	}
	return math.Abs(*r.Delta) > t.Value
}

func (r *CompareRow) deltaText() string {
	if r.Delta == nil {
		return "n/a"
	}
	unit := r.Unit
	if unit == "%" {
		unit = "pp" // percentage points: the relative change follows
	}
	s := fmt.Sprintf("%+.4g %s", *r.Delta, unit)
	if r.DeltaPercent != nil {
		s += fmt.Sprintf(", %+.1f%%", *r.DeltaPercent)
	}
	return s
}

// Row returns the row of key (from CompareKeys).
func (c *Comparison) Row(key string) *CompareRow {
	for i := range c.Rows {
		if c.Rows[i].Key == key {
			return &c.Rows[i]
		}
	}
	return &CompareRow{Key: key}
}

// Label is the row's name as people read it: its key and unit, except
// that the share of good requests, keyed "goodput" for compatibility
// (--max-regression goodput:1), reads as what it is.
func (r CompareRow) Label() string { return summary.MetricLabel(r.Key, r.Unit) }
