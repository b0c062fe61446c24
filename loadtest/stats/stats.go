package stats

import (
	"math"
	"slices"
)

// Stats summarises one latency metric in milliseconds, as vllm bench
// serve reports it: mean, median, population std (numpy's default) and
// percentiles with numpy's linear interpolation.
type Stats struct {
	Count       int
	Mean        float64
	Median      float64
	Std         float64
	Percentiles []Percentile
	// Exact is false when the percentiles come from the ITL histogram
	// (relative error below HistRelError).
	Exact bool
	// P99Low and P99High are the 95 % batch-means interval of p99 over
	// the requests in time order (NaN under two samples; P99High +Inf
	// where too few effective requests bound it): this
	// run's sampling error only, not the run-to-run variation that
	// --num-runs measures.
	P99Low, P99High float64
	// Internal holds the percentiles the analysis needs (internalPercentiles)
	// that were not asked for: Value finds them, reports do not print them.
	Internal []Percentile `json:"-"`
}

// internalPercentiles are computed whatever the user asks to see: the
// sweep's knee sentence and the verdict read p99 (the frontier and the
// table read the highest percentile asked for, Tail).
var internalPercentiles = []float64{99}

// withInternal returns the percentiles of internalPercentiles not in ps.
func withInternal(ps []float64) (extra []float64) {
	for _, p := range internalPercentiles {
		if !slices.Contains(ps, p) {
			extra = append(extra, p)
		}
	}
	return extra
}

// Percentile is one requested percentile of a metric, in milliseconds.
type Percentile struct {
	P     float64 // 0..100
	Value float64
}

// ExactStatsCI is ExactStats with the p99 interval: values are in time
// order (the interval resamples blocks of neighbours, O(n) each).
func ExactStatsCI(values []float64, ps []float64) Stats {
	e := GroupedOf(values).BatchEstimate(99, CILevel)
	s := ExactStats(values, ps)
	s.P99Low, s.P99High = e.Lo, e.Hi
	return s
}

// ExactStats computes Stats of values (milliseconds), without the p99
// interval (NaN); it sorts values.
func ExactStats(values []float64, ps []float64) Stats {
	s := Stats{Count: len(values), Exact: true, P99Low: math.NaN(), P99High: math.NaN()}
	slices.Sort(values)
	if len(values) > 0 {
		s.Mean, s.Std = MeanStd(values)
		s.Median = QuantileSorted(values, 50)
	}
	for _, p := range ps {
		s.Percentiles = append(s.Percentiles, Percentile{P: p, Value: QuantileSorted(values, p)})
	}
	for _, p := range withInternal(ps) {
		s.Internal = append(s.Internal, Percentile{P: p, Value: QuantileSorted(values, p)})
	}
	return s
}

// QuantileSorted is numpy.percentile's default ("linear") method.
func QuantileSorted(x []float64, p float64) float64 {
	if len(x) == 0 {
		return 0
	}
	pos := (float64(len(x)) - 1) * p / 100
	lo := int(math.Floor(pos))
	if lo >= len(x)-1 {
		return x[len(x)-1]
	}
	frac := pos - float64(lo)
	return x[lo] + (x[lo+1]-x[lo])*frac
}

// MeanStd is the mean and population standard deviation (two passes, so
// large values lose no precision).
func MeanStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)))
}

// Value returns percentile p if it was computed (asked for, or one of
// internalPercentiles), else NaN.
func (s Stats) Value(p float64) float64 {
	for _, q := range s.Percentiles {
		if q.P == p {
			return q.Value
		}
	}
	for _, q := range s.Internal {
		if q.P == p {
			return q.Value
		}
	}
	return math.NaN()
}

// Tail is the percentile a one-column summary (the sweep table, the
// curve) shows: 99 if it was asked for, else the highest asked for
// (99 when none was).
func (s Stats) Tail() float64 {
	tail := 0.0
	for _, q := range s.Percentiles {
		if q.P == 99 {
			return 99
		}
		tail = max(tail, q.P)
	}
	if tail == 0 {
		return 99
	}
	return tail
}
