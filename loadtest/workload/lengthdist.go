package workload

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
)

// HistSeries is one classic histogram's increase over a window: the
// cumulative counts at each upper bound (+Inf included) and the sum, as
// increase(x_bucket[w]) and increase(x_sum[w]) give them.
type HistSeries struct {
	Bounds []float64 // upper bounds, any order; +Inf for the overflow bucket
	Counts []float64 // cumulative counts at Bounds
	Sum    float64   // increase of _sum; 0 or NaN when unknown
}

// LengthBucket is a range of lengths (lo, hi] in tokens and the requests
// that fell in it; Open marks the overflow (+Inf) bucket, whose hi is an
// extrapolation.
type LengthBucket struct {
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Requests float64 `json:"requests"`
	Open     bool    `json:"open,omitempty"`
}

// LengthDist is an empirical length distribution from histogram buckets:
// a request's length is drawn by picking a bucket by its requests, then a
// whole number uniformly within it. Buckets of several series (targets
// with different bounds) may overlap: the mixture is still exact.
type LengthDist struct {
	Buckets  []LengthBucket `json:"buckets"`
	Requests float64        `json:"requests"`
	// Mean is the servers' own mean (sum ÷ count) where every series had
	// a sum, else the buckets' midpoint mean.
	Mean float64 `json:"mean"`
	// Tilt (per token) leans the finite buckets so what is drawn has that
	// mean (lengthtilt.go); 0 is uniform within each bucket.
	Tilt float64 `json:"tilt,omitempty"`
}

// MinRequests is the fewest requests a length distribution is derived
// from: below it one bucket's luck decides the shape.
const MinRequests = 50

// maxLength caps an extrapolated overflow bucket: a corrupt sum must not
// make bench ask for a billion-token prompt.
const maxLength = 1 << 20

// NewLengthDist merges the series' bucket increases into one distribution.
// Counts that fall with a rising bound (extrapolation noise of increase)
// are evened out as histogram_quantile does; empty buckets are dropped.
// The overflow bucket spans (top bound, hi] with hi chosen so its mean is
// what the sum leaves over the finite buckets' midpoints (2 × top bound
// without a usable sum).
func NewLengthDist(series []HistSeries) (*LengthDist, error) {
	d := &LengthDist{}
	sumKnown, sum, midSum := true, 0.0, 0.0
	for _, s := range series {
		if len(s.Bounds) != len(s.Counts) {
			return nil, fmt.Errorf("histogram series with %d bounds and %d counts", len(s.Bounds), len(s.Counts))
		}
		bs := bucketsOf(s)
		n, mids := 0.0, 0.0
		for _, b := range bs {
			n += b.Requests
			if !b.Open {
				mids += b.Requests * (b.Lo + b.Hi) / 2
			}
		}
		if n <= 0 {
			continue
		}
		if !(s.Sum > 0) || math.IsInf(s.Sum, 0) {
			sumKnown = false
		} else {
			sum += s.Sum
		}
		if last := len(bs) - 1; bs[last].Open {
			bs[last].Hi = overflowHi(bs[last], s.Sum, mids)
		}
		for _, b := range bs {
			if b.Requests > 0 && (b.Lo >= maxLength || (!b.Open && b.Hi > maxLength)) {
				return nil, fmt.Errorf("%w: %g requests in the bucket (%g, %s]: bench sends at most %d tokens",
					errLengthRange, b.Requests, b.Lo, leOf(b), maxLength)
			}
			if b.Requests > 0 {
				d.Buckets = append(d.Buckets, b)
				d.Requests += b.Requests
				midSum += b.Requests * (b.Lo + b.Hi) / 2
			}
		}
	}
	if d.Requests <= 0 {
		return nil, errNoRequests
	}
	d.merge()
	d.Mean = midSum / d.Requests
	if sumKnown && sum > 0 {
		d.Mean = sum / d.Requests
		d.fitTilt(d.Mean)
	}
	return d, nil
}

// errNoRequests: every bucket empty. errLengthRange: requests longer
// than bench can send (a bound like 1e12 would size a prompt of that
// many tokens: makeslice panicked).
var (
	errNoRequests  = errors.New("no requests in the histogram")
	errLengthRange = errors.New("lengths out of range")
)

func leOf(b LengthBucket) string {
	if b.Open {
		return "+Inf"
	}
	return strconv.FormatFloat(b.Hi, 'g', -1, 64)
}

// bucketsOf turns one series' cumulative counts into ranges, sorted.
func bucketsOf(s HistSeries) []LengthBucket {
	idx := make([]int, len(s.Bounds))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return s.Bounds[idx[a]] < s.Bounds[idx[b]] })
	var out []LengthBucket
	lo, prev := 0.0, 0.0
	for _, i := range idx {
		ub, c := s.Bounds[i], s.Counts[i]
		if math.IsNaN(ub) || math.IsNaN(c) || ub <= 0 {
			continue // lengths are positive: a bound at or below 0 holds nothing usable
		}
		c = max(c, prev) // cumulative counts never fall
		b := LengthBucket{Lo: lo, Hi: ub, Requests: c - prev}
		if math.IsInf(ub, 1) {
			b.Hi, b.Open = lo, true
		}
		out = append(out, b)
		lo, prev = ub, c
		if b.Open {
			break
		}
	}
	return out
}

// overflowHi is the top of the open bucket b: uniform on (lo, hi] has
// mean (lo+hi)/2, so hi = 2m − lo for the mean m the sum implies.
func overflowHi(b LengthBucket, sum, finiteMids float64) float64 {
	lo := b.Lo
	hi := 2 * max(lo, 1)
	if sum > 0 && !math.IsInf(sum, 0) && b.Requests > 0 {
		if m := (sum - finiteMids) / b.Requests; m > lo {
			hi = 2*m - lo
		}
	}
	return math.Min(math.Max(hi, lo+1), maxLength)
}

// merge adds up buckets with the same range (series with equal bounds).
func (d *LengthDist) merge() {
	slices.SortStableFunc(d.Buckets, func(a, b LengthBucket) int {
		return cmp.Or(cmp.Compare(a.Lo, b.Lo), cmp.Compare(a.Hi, b.Hi))
	})
	out := d.Buckets[:0]
	for _, b := range d.Buckets {
		if n := len(out); n > 0 && out[n-1].Lo == b.Lo && out[n-1].Hi == b.Hi && out[n-1].Open == b.Open {
			out[n-1].Requests += b.Requests
			continue
		}
		out = append(out, b)
	}
	d.Buckets = out
}

// Quantile is the length at quantile q (0..1), interpolating linearly
// within buckets as histogram_quantile does.
func (d *LengthDist) Quantile(q float64) float64 {
	lo, hi := 0.0, d.Max()
	for range 60 {
		mid := (lo + hi) / 2
		if d.cdf(mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

func (d *LengthDist) cdf(x float64) float64 {
	var below float64
	for _, b := range d.Buckets {
		switch {
		case x >= b.Hi:
			below += b.Requests
		case x > b.Lo:
			below += b.Requests * tiltCDF(x-b.Lo, b.Hi-b.Lo, d.tilted(b))
		}
	}
	return below / d.Requests
}

// Max is the longest length the distribution draws.
func (d *LengthDist) Max() float64 {
	var m float64
	for _, b := range d.Buckets {
		m = max(m, b.Hi)
	}
	return m
}

// OverflowShare is the share of requests above every finite bound.
func (d *LengthDist) OverflowShare() float64 {
	var n float64
	for _, b := range d.Buckets {
		if b.Open {
			n += b.Requests
		}
	}
	return n / d.Requests
}

// Summary is one line: requests, mean and percentiles.
func (d *LengthDist) Summary() string {
	s := fmt.Sprintf("%.0f requests, mean %.0f, p50 %.0f, p90 %.0f, p99 %.0f, max %.0f",
		d.Requests, d.Mean, d.Quantile(0.5), d.Quantile(0.9), d.Quantile(0.99), d.Max())
	if o := d.OverflowShare(); o > 0 {
		s += fmt.Sprintf(" (%.1f%% above the top bound, extrapolated from the sum)", 100*o)
	}
	return s
}

// Check validates a distribution read from a file.
func (d *LengthDist) Check() error {
	if len(d.Buckets) == 0 {
		return fmt.Errorf("no buckets")
	}
	var n float64
	for i, b := range d.Buckets {
		switch {
		case !finite(b.Lo) || !finite(b.Hi) || b.Lo < 0 || b.Hi <= b.Lo || b.Hi > maxLength:
			return fmt.Errorf("bucket %d: lo %g, hi %g is not a range 0 ≤ lo < hi ≤ %d", i, b.Lo, b.Hi, maxLength)
		case !finite(b.Requests) || b.Requests < 0:
			return fmt.Errorf("bucket %d: requests %g is not a count", i, b.Requests)
		}
		n += b.Requests
	}
	if !(n > 0) {
		return fmt.Errorf("no requests in any bucket")
	}
	if !finite(d.Tilt) || math.Abs(d.Tilt) > maxTilt {
		return fmt.Errorf("tilt %g is not in [-%g, %g]", d.Tilt, maxTilt, maxTilt)
	}
	d.Requests = n
	if !finite(d.Mean) || d.Mean <= 0 {
		d.Mean = d.mean()
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// lengthSampler draws from a LengthDist; built once, safe to share.
type lengthSampler struct {
	d   *LengthDist
	b   []LengthBucket
	cum []float64
}

func newLengthSampler(d *LengthDist) *lengthSampler {
	s := &lengthSampler{d: d, b: d.Buckets, cum: make([]float64, len(d.Buckets))}
	var c float64
	for i, b := range d.Buckets {
		c += b.Requests
		s.cum[i] = c
	}
	return s
}

// sample draws a whole length in (lo, hi] of a bucket picked by weight
// (rounded up from the tilted density within it), at least 1.
func (s *lengthSampler) sample(rng *rand.Rand) int {
	u := rng.Float64() * s.cum[len(s.cum)-1]
	i := min(sort.SearchFloat64s(s.cum, u), len(s.cum)-1)
	for i < len(s.cum)-1 && s.b[i].Requests == 0 {
		i++
	}
	b := s.b[i]
	lo, hi := int(math.Floor(b.Lo))+1, int(math.Floor(b.Hi))
	if hi <= lo {
		return max(lo, 1)
	}
	x := b.Lo + tiltSample(rng.Float64(), b.Hi-b.Lo, s.d.tilted(b))
	return min(max(int(math.Ceil(x)), lo), hi)
}
