package exposition

import (
	"math"
	"slices"
)

// schema3Bounds are the bucket boundaries of native schema 3 within one
// power of two, as fractions of math.Frexp; schemas 2 and 1 use every
// second and fourth of them. Written out, not computed, so that a value on
// a boundary falls into the same bucket as in client_golang and Prometheus.
var schema3Bounds = []float64{
	0.5, 0.5452538663326288, 0.5946035575013605, 0.6484197773255048,
	0.7071067811865475, 0.7711054127039704, 0.8408964152537144, 0.9170040432046711,
}

var nativeBounds = [4][]float64{1: everyNth(schema3Bounds, 4), 2: everyNth(schema3Bounds, 2), 3: schema3Bounds}

func everyNth(b []float64, n int) []float64 {
	var out []float64
	for i := 0; i < len(b); i += n {
		out = append(out, b[i])
	}
	return out
}

const minSchema = -4

type nativeBucket struct {
	key   int32
	count uint64
}

// nativeBuckets are the sparse exponential buckets of a native histogram,
// each side sorted by key.
type nativeBuckets struct {
	schema   int32
	zero     uint64
	pos, neg []nativeBucket
}

func (n *nativeBuckets) len() int { return len(n.pos) + len(n.neg) }

func (n *nativeBuckets) observe(v float64) {
	switch {
	case math.IsNaN(v):
	case v > DefaultZeroThreshold:
		n.pos = addBucket(n.pos, nativeKey(v, n.schema), 1)
	case v < -DefaultZeroThreshold:
		n.neg = addBucket(n.neg, nativeKey(v, n.schema), 1)
	default:
		n.zero++
	}
}

// nativeKey is the index of v's bucket: bucket k holds
// (2^((k-1)/2^schema), 2^(k/2^schema)].
func nativeKey(v float64, schema int32) int32 {
	inf := math.IsInf(v, 0)
	if inf {
		v = math.MaxFloat64
	}
	frac, exp := math.Frexp(math.Abs(v))
	var key int
	if schema > 0 {
		b := nativeBounds[schema]
		i, _ := slices.BinarySearch(b, frac)
		key = i + (exp-1)*len(b)
	} else {
		key = exp
		if frac == 0.5 {
			key--
		}
		key = (key + (1 << -schema) - 1) >> -schema
	}
	if inf {
		key++
	}
	return int32(key)
}

func addBucket(bs []nativeBucket, key int32, count uint64) []nativeBucket {
	i, found := slices.BinarySearchFunc(bs, key, func(b nativeBucket, k int32) int { return int(b.key - k) })
	if found {
		bs[i].count += count
		return bs
	}
	return slices.Insert(bs, i, nativeBucket{key, count})
}

// halveResolution lowers the schema by one, merging each pair of buckets.
func (n *nativeBuckets) halveResolution() {
	if n.schema == minSchema {
		return
	}
	n.schema--
	n.pos, n.neg = mergePairs(n.pos), mergePairs(n.neg)
}

// mergePairs maps every key k to ceil(k/2); keys stay sorted, so buckets
// that merge are neighbours.
func mergePairs(bs []nativeBucket) []nativeBucket {
	out := bs[:0]
	for _, b := range bs {
		b.key = (b.key + 1) >> 1
		if len(out) > 0 && out[len(out)-1].key == b.key {
			out[len(out)-1].count += b.count
			continue
		}
		out = append(out, b)
	}
	return out
}

// spans walks bs as client_golang encodes them: a gap of one or two empty
// buckets stays inside a span (as zero deltas), a longer gap starts a new
// span. span is called for each span, then delta for each bucket in order.
func spans(bs []nativeBucket, span func(offset int32, length uint32), delta func(int64)) {
	if len(bs) == 0 {
		return
	}
	var (
		offset int32
		length uint32
		next   int32
	)
	for i, b := range bs {
		gap := b.key - next
		if i == 0 || gap > 2 {
			if i > 0 {
				span(offset, length)
			}
			offset, length = gap, 0
		} else {
			length += uint32(gap)
		}
		length++
		next = b.key + 1
	}
	span(offset, length)
	var prev int64
	for i, b := range bs {
		if gap := b.key - next; i > 0 && gap <= 2 {
			for ; gap > 0; gap-- {
				delta(-prev)
				prev = 0
			}
		}
		delta(int64(b.count) - prev)
		prev = int64(b.count)
		next = b.key + 1
	}
}
