package collector

import (
	"math"
	"sort"

	dto "github.com/prometheus/client_model/go"
)

// histData is a classic histogram ready for prometheus.NewConstHistogram:
// buckets are cumulative and exclude +Inf (count stands for it).
type histData struct {
	count   uint64
	sum     float64
	buckets map[float64]uint64
}

// histFromDTO copies a parsed histogram, scaling bounds and sum. The text
// parser stores counts as floats when any value is fractional; const
// histograms need integers, so those are truncated.
func histFromDTO(h *dto.Histogram, scale float64) *histData {
	out := &histData{
		count:   toCount(h.GetSampleCount(), h.GetSampleCountFloat()),
		sum:     h.GetSampleSum() * scale,
		buckets: make(map[float64]uint64, len(h.GetBucket())),
	}
	for _, b := range h.GetBucket() {
		c := toCount(b.GetCumulativeCount(), b.GetCumulativeCountFloat())
		if math.IsInf(b.GetUpperBound(), +1) {
			// A histogram written without _count still has its total here.
			if out.count == 0 {
				out.count = c
			}
			continue
		}
		out.buckets[b.GetUpperBound()*scale] = c
	}
	return out
}

func toCount(u uint64, f float64) uint64 {
	if f > 0 && !math.IsInf(f, 0) {
		return uint64(f)
	}
	return u
}

// add merges o into h if both have the same bucket bounds; summing
// cumulative counts at different bounds would be wrong, so it refuses.
func (h *histData) add(o *histData) bool {
	if len(h.buckets) != len(o.buckets) {
		return false
	}
	for b := range o.buckets {
		if _, ok := h.buckets[b]; !ok {
			return false
		}
	}
	h.count += o.count
	h.sum += o.sum
	for b, c := range o.buckets {
		h.buckets[b] += c
	}
	return true
}

// validHistogram refuses a histogram with a NaN or infinite sum or count,
// a negative count, or cumulative counts that fall as the bound rises (or
// exceed the total): rate() and histogram_quantile() over it would be
// garbage, and re-exported it would look like ours.
func validHistogram(h *dto.Histogram) bool {
	if !finite(h.GetSampleSum()) || !validCount(h.GetSampleCountFloat()) {
		return false
	}
	total := max(float64(h.GetSampleCount()), h.GetSampleCountFloat())
	bs := append([]*dto.Bucket(nil), h.GetBucket()...)
	sort.Slice(bs, func(i, j int) bool { return bs[i].GetUpperBound() < bs[j].GetUpperBound() })
	prev := 0.0
	for _, b := range bs {
		c := max(float64(b.GetCumulativeCount()), b.GetCumulativeCountFloat())
		if math.IsNaN(b.GetUpperBound()) || !validCount(b.GetCumulativeCountFloat()) || c < prev {
			return false
		}
		prev = c
	}
	// Without _count the parser leaves the total at 0: +Inf stands for it.
	return total == 0 || prev <= total
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func validCount(f float64) bool { return finite(f) && f >= 0 }
