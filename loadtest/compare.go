package loadtest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// compareMetric is one row of `bench compare`.
type compareMetric struct {
	key, unit   string
	higherWorse bool
}

// compareFamilies are the latency metrics compared, with the statistics
// shown of each.
var (
	compareFamilies = []string{"ttft", "tpot", "itl", "e2el"}
	compareStats    = []string{"mean", "p50", "p90", "p99"}
)

// compareMetrics lists every row in order: latencies, then throughput,
// goodput and the failure share.
func compareMetrics() []compareMetric {
	var out []compareMetric
	for _, f := range compareFamilies {
		for _, s := range compareStats {
			out = append(out, compareMetric{s + "_" + f + "_ms", "ms", true})
		}
	}
	return append(out,
		compareMetric{"output_throughput", "tok/s", false},
		compareMetric{"request_throughput", "req/s", false},
		compareMetric{"goodput", "%", false},
		compareMetric{"failed_percent", "%", true})
}

// CompareKeys are the metric keys --max-regression accepts.
func CompareKeys() []string {
	var out []string
	for _, m := range compareMetrics() {
		out = append(out, m.key)
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
func Compare(base, nw *RunFile, alpha float64, ts []Threshold) *Comparison {
	c := &Comparison{Base: base.Path, New: nw.Path, Alpha: alpha, WorkloadDiffs: WorkloadDiffs(base, nw),
		Notes:        InfoDiffs(base, nw),
		BaseRequests: base.Measured, NewRequests: nw.Measured, Regressions: []string{}}
	ms := compareMetrics()
	c.Rows = make([]CompareRow, 0, len(ms)) // rows points into it: no reallocation
	rows := map[string]*CompareRow{}
	for _, m := range ms {
		c.Rows = append(c.Rows, CompareRow{Key: m.key, Unit: m.unit, Test: "none", higherWorse: m.higherWorse})
		rows[m.key] = &c.Rows[len(c.Rows)-1]
	}
	for _, f := range compareFamilies {
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
		if msg := rows[t.Key].check(t); msg != "" {
			c.Regressions = append(c.Regressions, msg)
		}
	}
	return c
}

// compareLatency fills the rows of latency family f (ttft, tpot, itl,
// e2el): values, and the test of each on the requests.
func compareLatency(rows map[string]*CompareRow, base, nw *RunFile, f string, alpha float64) {
	samples := func(rf *RunFile) []float64 {
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
	_, p := MannWhitney(a, b)
	var boot []QuantileDiff
	if f != "itl" { // ITL's percentiles are over gaps, the samples per request
		boot = BootstrapQuantileDiffs(a, b, ps, alpha)
	}
	bv, nv := exactStats(a, ps), exactStats(b, ps)
	for _, s := range compareStats {
		r := rows[s+"_"+f+"_ms"]
		if f == "itl" { // the run's ITL is over every gap: its aggregate keys
			r.set(itlValue(base, r.Key), itlValue(nw, r.Key))
		} else {
			r.set(sampleStat(bv, s), sampleStat(nv, s))
		}
		switch {
		case len(a) == 0 || len(b) == 0:
		case s == "mean" || s == "p50" || boot == nil:
			r.Test, r.PValue = "mann-whitney", num(p)
		default:
			q := boot[slices.Index(ps, must(strconv.ParseFloat(s[1:], 64)))]
			r.Test, r.PValue, r.CILow, r.CIHigh = "bootstrap", num(q.PValue), num(q.Lo), num(q.Hi)
		}
	}
}

// setShares sets a share of requests (k of n, in %) and its test.
func (r *CompareRow) setShares(k1, n1, k2, n2 int) {
	r.set(pct(k1, n1), pct(k2, n2))
	_, p := TwoProportion(k1, n1, k2, n2)
	r.Test, r.PValue = "two-proportion", num(p)
}

// check applies threshold t to r: a sentence if it is a regression.
func (r *CompareRow) check(t Threshold) string {
	r.Threshold = t.String()
	switch {
	case r.Base != nil && r.New == nil:
		// Nothing left to measure (every request failed) is worse than
		// any threshold, not a metric to skip.
		r.Regression = true
		return fmt.Sprintf("%s: %s → none: the new run has no request to measure it on (limit %s)", r.Key, fmtNum(r.Base), t)
	case r.beyond(t) && (r.Significant || r.Test == "none"):
		r.Regression = true
		return fmt.Sprintf("%s: %s → %s (%s, limit %s)", r.Key, fmtNum(r.Base), fmtNum(r.New), r.deltaText(), t)
	}
	return ""
}

// sampleStat is statistic s (mean, p50, …) of st, none for an empty
// sample (exactStats gives 0s there: an all-failed run is not fast).
func sampleStat(st Stats, s string) float64 {
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
func itlValue(rf *RunFile, k string) float64 {
	if len(rf.ITLMean) == 0 {
		return math.NaN()
	}
	return rf.Float(k)
}

// Has reports whether rf can have metric key (CompareKeys) at all:
// goodput needs SLOs, an ITL percentile or a throughput its aggregate key;
// the others come from the requests (and are missing only when none
// succeeded).
func (rf *RunFile) Has(key string) bool {
	switch {
	case key == "goodput":
		return rf.SLO.Set()
	case strings.HasSuffix(key, "_itl_ms"), strings.HasSuffix(key, "_throughput"):
		_, ok := rf.Keys[key].(float64)
		return ok
	}
	return true
}

func must(f float64, _ error) float64 { return f }

func sortedCopy(x []float64) []float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y
}

func pct(k, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return 100 * float64(k) / float64(n)
}

// num is f as an optional JSON number (NaN and ±Inf have none).
func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func (r *CompareRow) set(base, nw float64) {
	r.Base, r.New = num(base), num(nw)
	if r.Base != nil && r.New != nil {
		r.Delta = num(nw - base)
		if base != 0 {
			r.DeltaPercent = num(100 * (nw - base) / math.Abs(base))
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

func fmtNum(f *float64) string {
	if f == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*f, 'f', 2, 64)
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
