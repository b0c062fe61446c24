package exposition

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// clientKey is the native bucket client_golang puts v into, at the schema
// that the bucket factor selects.
func clientKey(t *testing.T, factor, v float64) (int32, int32) {
	t.Helper()
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "h", Help: "h", NativeHistogramBucketFactor: factor})
	h.Observe(v)
	var m dto.Metric
	if err := h.(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.Histogram.GetSchema(), m.Histogram.PositiveSpan[0].GetOffset()
}

// Every schema this package uses puts values into the same bucket as
// client_golang: powers of two, the exact bucket boundaries and random values.
func TestNativeKeyMatchesClientGolang(t *testing.T) {
	factors := map[int32]float64{3: 1.1, 2: 1.2, 1: 1.5, 0: 2, -1: 4, -2: 16, -3: 256, -4: 65536}
	values := []float64{1, 2, 0.5, 3, 1e-9, 1e9, math.MaxFloat64, 1e-38}
	for _, b := range schema3Bounds {
		for _, e := range []int{-20, -1, 0, 1, 7} {
			values = append(values, math.Ldexp(b, e), math.Nextafter(math.Ldexp(b, e), 0), math.Nextafter(math.Ldexp(b, e), 1e300))
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		values = append(values, math.Exp(rng.Float64()*60-30))
	}
	for schema, factor := range factors {
		for _, v := range values {
			wantSchema, want := clientKey(t, factor, v)
			if wantSchema != schema {
				t.Fatalf("factor %v gives schema %d in client_golang, want %d", factor, wantSchema, schema)
			}
			if got := nativeKey(v, schema); got != want {
				t.Errorf("schema %d, v=%g: key %d, client_golang %d", schema, v, got, want)
			}
		}
	}
}

// Past the bucket limit the resolution halves (down to schema -4); once
// minReset has passed since the last reset, the histogram starts afresh at
// full resolution, keeping the observation that triggered it.
func TestHistogramLimitAndReset(t *testing.T) {
	spec := NewHistogramSpec([]float64{1}, 3, 4, time.Hour, "id")
	start := time.Unix(1700000000, 0)
	h := NewHistogram(spec, start)
	for i := range 40 {
		h.Observe(math.Ldexp(1, 3*i-60), "", start.Add(time.Duration(i)*time.Second))
	}
	if h.native.schema != minSchema || h.count != 40 {
		t.Fatalf("after 40 widely spread values: schema %d, count %d; want %d, 40", h.native.schema, h.count, minSchema)
	}
	var total uint64
	for _, b := range h.native.pos {
		total += b.count
	}
	if total != 40 {
		t.Errorf("native buckets hold %d observations after halving, want 40", total)
	}
	later := start.Add(time.Hour)
	h.Observe(0.25, "p1", later)
	if h.native.schema != 3 || h.count != 1 || !h.created.Equal(later) || h.counts[0] != 1 {
		t.Errorf("after the scheduled reset: schema %d, count %d, created %v, counts %v", h.native.schema, h.count, h.created, h.counts)
	}
	if h.exemplars[0].value != "p1" {
		t.Errorf("exemplar %+v, want p1", h.exemplars[0])
	}
}
