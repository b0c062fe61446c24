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
	// Test is mann-whitney, bootstrap, two-proportion, or none (one
	// number per run: nothing to test it against).
	Test   string   `json:"test"`
	PValue *float64 `json:"p_value"`
	// CILow, CIHigh bound the bootstrap's difference (new − base) at
	// the comparison's confidence.
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
	Base          string       `json:"base"`
	New           string       `json:"new"`
	Alpha         float64      `json:"alpha"`
	WorkloadDiffs []string     `json:"workload_differences,omitempty"`
	Notes         []string     `json:"notes,omitempty"` // differences that do not stop a comparison
	Forced        bool         `json:"forced,omitempty"`
	BaseRequests  int          `json:"base_requests"`
	NewRequests   int          `json:"new_requests"`
	Rows          []CompareRow `json:"metrics"`
	Regressions   []string     `json:"regressions"`
}

// Compare compares new against base at significance level alpha and
// checks the thresholds (keys from ParseThresholds).
func Compare(base, nw *resultfile.RunFile, alpha float64, ts []Threshold) *Comparison {
	c := &Comparison{Base: base.Path, New: nw.Path, Alpha: alpha, WorkloadDiffs: resultfile.WorkloadDiffs(base, nw),
		Notes:        resultfile.InfoDiffs(base, nw),
		BaseRequests: base.Measured, NewRequests: nw.Measured, Regressions: []string{}}
	ms := summary.Metrics()
	c.Rows = make([]CompareRow, 0, len(ms)) // rows points into it: no reallocation
	rows := map[string]*CompareRow{}
	for _, m := range ms {
		c.Rows = append(c.Rows, CompareRow{Key: m.Key, Unit: m.Unit, Test: "none", higherWorse: m.HigherWorse})
		rows[m.Key] = &c.Rows[len(c.Rows)-1]
	}
	for _, f := range summary.CompareFamilies {
		compareLatency(rows, base, nw, f, alpha)
	}
	rows["output_throughput"].set(base.Float("output_throughput"), nw.Float("output_throughput"))
	rows["request_throughput"].set(base.Float("request_throughput"), nw.Float("request_throughput"))
	if base.SLO.Set() && nw.SLO.Set() {
		rows["goodput"].setShares(base.Good, base.Measured, nw.Good, nw.Measured)
	}
	rows["failed_percent"].setShares(base.Failed, base.Measured, nw.Failed, nw.Measured)
	for i := range c.Rows {
		c.Rows[i].judge(alpha)
	}
	for _, t := range ts {
		if msg := rows[t.Key].Check(t); msg != "" {
			c.Regressions = append(c.Regressions, msg)
		}
	}
	return c
}

// compareLatency fills the rows of latency family f (ttft, tpot, itl,
// e2el): values, and the test of each on the requests.
func compareLatency(rows map[string]*CompareRow, base, nw *resultfile.RunFile, f string, alpha float64) {
	samples := func(rf *resultfile.RunFile) []float64 {
		switch f {
		case "ttft":
			return rf.TTFT
		case "tpot":
			return rf.TPOT
		case "e2el":
			return rf.E2EL
		}
		return rf.ITLMean
	}
	ps := []float64{50, 90, 99}
	a, b := sortedCopy(samples(base)), sortedCopy(samples(nw))
	_, p := stats.MannWhitney(a, b)
	var boot []stats.QuantileDiff
	if f != "itl" { // ITL's percentiles are over gaps, the samples per request
		boot = stats.BootstrapQuantileDiffs(a, b, ps, alpha)
	}
	bv, nv := stats.ExactStats(a, ps), stats.ExactStats(b, ps)
	for _, s := range summary.CompareStats {
		r := rows[s+"_"+f+"_ms"]
		if f == "itl" { // the run's ITL is over every gap: its aggregate keys
			r.set(itlValue(base, r.Key), itlValue(nw, r.Key))
		} else {
			r.set(sampleStat(bv, s), sampleStat(nv, s))
		}
		switch {
		case len(a) == 0 || len(b) == 0:
		case s == "mean" || s == "p50" || boot == nil:
			r.Test, r.PValue = "mann-whitney", summary.Num(p)
		default:
			q := boot[slices.Index(ps, must(strconv.ParseFloat(s[1:], 64)))]
			r.Test, r.PValue, r.CILow, r.CIHigh = "bootstrap", summary.Num(q.PValue), summary.Num(q.Lo), summary.Num(q.Hi)
		}
	}
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

// sampleStat is statistic s (mean, p50, …) of st, none for an empty
// sample (exactStats gives 0s there: an all-failed run is not fast).
func sampleStat(st stats.Stats, s string) float64 {
	switch {
	case st.Count == 0:
		return math.NaN()
	case s == "mean":
		return st.Mean
	}
	return st.Value(must(strconv.ParseFloat(s[1:], 64)))
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
	case r.CILow != nil: // the interval at 1 − alpha leaves out 0
		r.Significant = *r.CILow > 0 || *r.CIHigh < 0
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
