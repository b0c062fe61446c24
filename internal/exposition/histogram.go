package exposition

import (
	"math"
	"slices"
	"time"
)

// HistogramSpec is what histograms of one family share: classic bucket
// bounds, native-bucket resolution and limits, the exemplar label.
type HistogramSpec struct {
	bounds        []float64 // classic upper bounds, without +Inf
	le            []Label   // the le label of every classic bucket, +Inf last
	schema        int32     // initial native schema
	maxBuckets    int       // native buckets before the resolution is halved
	minReset      time.Duration
	exemplarLabel string
}

// DefaultZeroThreshold is client_golang's default width of the native
// zero bucket (2^-128).
const DefaultZeroThreshold = 2.938735877055719e-39

// NewHistogramSpec describes histograms with the given classic bounds and
// native buckets of the given schema (1 to 3; 3 is a growth factor of
// 1.09). Past maxBuckets native buckets, a histogram halves its
// resolution, and it starts afresh when minReset has passed since its last
// reset, as client_golang's do. Exemplars carry the label exemplarLabel,
// or several: a comma-separated list (see exemplar_labels.go).
func NewHistogramSpec(bounds []float64, schema int32, maxBuckets int, minReset time.Duration, exemplarLabel string) *HistogramSpec {
	if schema < 1 || schema > 3 {
		panic("exposition: native schema must be 1, 2 or 3")
	}
	s := &HistogramSpec{bounds: slices.Clone(bounds), schema: schema, maxBuckets: maxBuckets,
		minReset: minReset, exemplarLabel: exemplarLabel}
	for _, b := range bounds {
		s.le = append(s.le, newLeLabel(b))
	}
	s.le = append(s.le, newLeLabel(math.Inf(1)))
	return s
}

// bucket returns the index of v's classic bucket, len(bounds) for +Inf.
func (s *HistogramSpec) bucket(v float64) int {
	for i, b := range s.bounds {
		if v <= b {
			return i
		}
	}
	return len(s.bounds)
}

type exemplar struct {
	value    string // the exemplar label's value; "" for none
	v        float64
	unixNano int64
}

// Histogram is a classic histogram with native buckets on the same series,
// and one exemplar per classic bucket. It is not safe for concurrent use:
// its owner locks around Observe and writing.
type Histogram struct {
	spec      *HistogramSpec
	counts    []uint64   // per classic bucket, not cumulative; +Inf last
	exemplars []exemplar // nil until the first exemplar
	count     uint64
	sum       float64
	created   time.Time // start, or last reset
	resetAt   time.Time // a reset due after the resolution was halved
	native    nativeBuckets
}

// NewHistogram returns an empty histogram created at now.
func NewHistogram(spec *HistogramSpec, now time.Time) *Histogram {
	return &Histogram{spec: spec, counts: make([]uint64, len(spec.bounds)+1), created: now,
		native: nativeBuckets{schema: spec.schema}}
}

// Observe adds v, with an exemplar unless exemplarValue is empty. With
// several exemplar labels, exemplarValue is their values joined by NUL.
func (h *Histogram) Observe(v float64, exemplarValue string, now time.Time) {
	if !h.resetAt.IsZero() && !now.Before(h.resetAt) {
		h.reset(now)
	}
	i := h.spec.bucket(v)
	h.add(v, i)
	if h.spec.maxBuckets > 0 && h.native.len() > h.spec.maxBuckets {
		h.limit(v, i, now)
	}
	if exemplarValue != "" {
		if h.exemplars == nil {
			h.exemplars = make([]exemplar, len(h.counts))
		}
		h.exemplars[i] = exemplar{value: exemplarValue, v: v, unixNano: now.UnixNano()}
	}
}

func (h *Histogram) add(v float64, i int) {
	h.counts[i]++
	h.count++
	h.sum += v
	h.native.observe(v)
}

// limit keeps the native buckets within maxBuckets as client_golang does:
// start afresh if minReset has passed since the last reset, else halve
// the resolution and schedule a reset for when it has.
func (h *Histogram) limit(v float64, i int, now time.Time) {
	if h.spec.minReset > 0 && h.resetAt.IsZero() && now.Sub(h.created) >= h.spec.minReset {
		h.reset(now)
		h.add(v, i)
		return
	}
	if h.spec.minReset > 0 && h.resetAt.IsZero() {
		h.resetAt = h.created.Add(h.spec.minReset)
	}
	h.native.halveResolution()
}

// reset zeroes the counts (not the exemplars) and restores full resolution.
func (h *Histogram) reset(now time.Time) {
	clear(h.counts)
	h.count, h.sum = 0, 0
	h.native = nativeBuckets{schema: h.spec.schema, pos: h.native.pos[:0], neg: h.native.neg[:0]}
	h.created, h.resetAt = now, time.Time{}
}
