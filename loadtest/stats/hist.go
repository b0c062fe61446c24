package stats

import (
	"math"
	"math/bits"
)

// HistRelError bounds the relative error of a histogram quantile: values
// are kept in 1,024 linear sub-buckets per power of two of nanoseconds and
// reported at the bucket's midpoint.
const HistRelError = 1.0 / 2048

const subBits = 10 // 1,024 sub-buckets

// Hist is a log-linear histogram of non-negative durations in nanoseconds
// (HDR-style), with exact count, sum and sum of squares. Zero value ready.
type Hist struct {
	Counts []uint64
	N      uint64
	sum    float64 // ms
	sumSq  float64 // ms²
}

func bucketOf(ns int64) int {
	v := uint64(max(ns, 0))
	if v < 1<<subBits {
		return int(v)
	}
	e := bits.Len64(v) - subBits - 1 // shift keeping subBits+1 bits
	return (e+1)<<subBits + int(v>>uint(e)) - 1<<subBits
}

// BucketMid is the midpoint of bucket i, in nanoseconds.
func BucketMid(i int) float64 {
	if i < 1<<subBits {
		return float64(i)
	}
	e := i>>subBits - 1
	m := uint64(i&(1<<subBits-1)) + 1<<subBits
	lo := float64(m << uint(e))
	return lo + float64(uint64(1)<<uint(e))/2 - 0.5
}

// Add records one duration in nanoseconds.
func (h *Hist) Add(ns int64) {
	i := bucketOf(ns)
	if i >= len(h.Counts) {
		h.Counts = append(h.Counts, make([]uint64, i+1-len(h.Counts))...)
	}
	h.Counts[i]++
	h.N++
	ms := float64(ns) / 1e6
	h.sum += ms
	h.sumSq += ms * ms
}

// rank returns the value (ms) of the k-th smallest observation (0-based).
func (h *Hist) rank(k uint64) float64 {
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen > k {
			return BucketMid(i) / 1e6
		}
	}
	return 0
}

// Quantile interpolates like numpy between the neighbouring ranks.
func (h *Hist) Quantile(p float64) float64 {
	if h.N == 0 {
		return 0
	}
	pos := float64(h.N-1) * p / 100
	lo := uint64(math.Floor(pos))
	a := h.rank(lo)
	if lo+1 >= h.N {
		return a
	}
	return a + (h.rank(lo+1)-a)*(pos-float64(lo))
}

// Stats summarises the histogram: exact mean and std, quantiles within
// HistRelError.
func (h *Hist) Stats(ps []float64) Stats {
	s := Stats{Count: int(h.N)}
	if h.N > 0 {
		n := float64(h.N)
		s.Mean = h.sum / n
		s.Std = math.Sqrt(max(h.sumSq/n-s.Mean*s.Mean, 0))
		s.Median = h.Quantile(50)
	}
	for _, p := range ps {
		s.Percentiles = append(s.Percentiles, Percentile{P: p, Value: h.Quantile(p)})
	}
	for _, p := range withInternal(ps) {
		s.Internal = append(s.Internal, Percentile{P: p, Value: h.Quantile(p)})
	}
	return s
}
