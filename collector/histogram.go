package collector

import (
	"math"

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
