package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func inf() float64 { return math.Inf(1) }

// The harness's two-mode prompts: 40 % of 100 tokens, 60 % of 1,000, in
// buckets 128, 512, 2048. Without a sum: uniform within buckets, the
// empty one dropped, the median histogram_quantile's. With the sum: the
// buckets lean (one tilt) so the lengths drawn have the servers' mean,
// 640, not the midpoints' 794.
func TestLengthDistKnownHistogram(t *testing.T) {
	h := HistSeries{Bounds: []float64{2048, 128, inf(), 512}, Counts: []float64{100, 40, 100, 40}, Sum: math.NaN()}
	d, err := NewLengthDist([]HistSeries{h})
	if err != nil {
		t.Fatal(err)
	}
	want := []LengthBucket{{Lo: 0, Hi: 128, Requests: 40}, {Lo: 512, Hi: 2048, Requests: 60}}
	if len(d.Buckets) != 2 || d.Buckets[0] != want[0] || d.Buckets[1] != want[1] || d.Tilt != 0 {
		t.Fatalf("buckets %+v tilt %g, want %+v", d.Buckets, d.Tilt, want)
	}
	if d.Requests != 100 || d.Mean != 793.6 {
		t.Errorf("requests %g mean %g, want 100 and the midpoints' 793.6", d.Requests, d.Mean)
	}
	if q := d.Quantile(0.5); math.Abs(q-768) > 0.01 {
		t.Errorf("median %g, want 768 (as histogram_quantile)", q)
	}
	if d.Max() != 2048 || d.OverflowShare() != 0 {
		t.Errorf("max %g, overflow %g", d.Max(), d.OverflowShare())
	}
	h.Sum = 64000
	if d, err = NewLengthDist([]HistSeries{h}); err != nil || d.Mean != 640 || d.Tilt >= 0 || math.Abs(d.mean()-640) > 0.5 {
		t.Fatalf("with the sum: mean %g, drawn mean %g, tilt %g (%v); want 640, a negative tilt", d.Mean, d.mean(), d.Tilt, err)
	}
	// Draws follow the buckets, whole numbers within them, with the mean.
	s, rng := newLengthSampler(d), rand.New(rand.NewPCG(1, 2))
	low, sum := 0, 0.0
	const n = 40000
	for range n {
		v := s.sample(rng)
		sum += float64(v)
		switch {
		case v >= 1 && v <= 128:
			low++
		case v >= 513 && v <= 2048:
		default:
			t.Fatalf("draw %d outside the buckets", v)
		}
	}
	if share := float64(low) / n; math.Abs(share-0.4) > 0.02 {
		t.Errorf("%.3f of draws ≤ 128, want 0.4", share)
	}
	if m := sum / n; math.Abs(m-640)/640 > 0.02 {
		t.Errorf("draws average %.1f, want 640 within 2%%", m)
	}
}

// One bucket (128, 512] whose requests all had 200 tokens: uniform draws
// would average 320; the tilt brings them to 200.
func TestLengthDistTiltOneBucket(t *testing.T) {
	d, err := NewLengthDist([]HistSeries{{Bounds: []float64{128, 512, inf()}, Counts: []float64{0, 1000, 1000}, Sum: 200000}})
	if err != nil {
		t.Fatal(err)
	}
	s, rng := newLengthSampler(d), rand.New(rand.NewPCG(5, 6))
	var sum float64
	for range 20000 {
		v := s.sample(rng)
		if v < 129 || v > 512 {
			t.Fatalf("draw %d outside (128, 512]", v)
		}
		sum += float64(v)
	}
	if m := sum / 20000; math.Abs(m-200) > 4 {
		t.Errorf("draws average %.1f, want 200", m)
	}
	if q := d.Quantile(0.5); q >= 200 || q <= 128 {
		t.Errorf("median %g: the tilt leans low", q)
	}
	// A mean beyond any tilt's reach is approached, not overshot.
	d, _ = NewLengthDist([]HistSeries{{Bounds: []float64{128, 512, inf()}, Counts: []float64{0, 1000, 1000}, Sum: 1000}})
	if d.Tilt != -maxTilt || d.mean() < 128 {
		t.Errorf("mean 1 in (128, 512]: tilt %g drawn mean %g", d.Tilt, d.mean())
	}
}

// The +Inf bucket: its range is set so its mean is what the sum leaves
// over the finite buckets (or 2 × the top bound without a sum), capped.
func TestLengthDistOverflow(t *testing.T) {
	h := HistSeries{Bounds: []float64{100, inf()}, Counts: []float64{50, 100}, Sum: 50*50 + 50*300}
	d, err := NewLengthDist([]HistSeries{h})
	if err != nil {
		t.Fatal(err)
	}
	top := d.Buckets[len(d.Buckets)-1]
	if !top.Open || top.Lo != 100 || top.Hi != 500 || d.OverflowShare() != 0.5 {
		t.Fatalf("overflow bucket %+v share %g, want (100, 500] (mean 300) and 0.5", top, d.OverflowShare())
	}
	if !strings.Contains(d.Summary(), "50.0% above the top bound") {
		t.Errorf("summary %q does not say how much was extrapolated", d.Summary())
	}
	s, rng := newLengthSampler(d), rand.New(rand.NewPCG(3, 4))
	var sum, n float64
	for range 20000 {
		if v := s.sample(rng); v > 100 {
			sum += float64(v)
			n++
		}
	}
	if m := sum / n; math.Abs(m-300.5) > 5 {
		t.Errorf("overflow draws average %g, want about 300", m)
	}
	h.Sum = math.NaN()
	if d, _ = NewLengthDist([]HistSeries{h}); d.Buckets[1].Hi != 200 {
		t.Errorf("without a sum the overflow bucket is %+v, want (100, 200]", d.Buckets[1])
	}
	h.Sum = 1e300
	if d, _ = NewLengthDist([]HistSeries{h}); d.Max() != maxLength {
		t.Errorf("a huge sum gives max %g, want the cap %d", d.Max(), maxLength)
	}
	// Only the +Inf bucket (a server with no finite bounds).
	d, err = NewLengthDist([]HistSeries{{Bounds: []float64{inf()}, Counts: []float64{10}, Sum: 1000}})
	if err != nil || d.Buckets[0].Lo != 0 || d.Buckets[0].Hi != 200 || d.Mean != 100 {
		t.Errorf("only +Inf: %+v, %v; want (0, 200] with mean 100", d, err)
	}
}

// Targets with different bounds are mixed, not added by le (which would
// give counts that fall); equal bounds are merged.
func TestLengthDistSeveralTargets(t *testing.T) {
	a := HistSeries{Bounds: []float64{10, 100, inf()}, Counts: []float64{10, 20, 20}, Sum: math.NaN()}
	b := HistSeries{Bounds: []float64{50, inf()}, Counts: []float64{30, 30}, Sum: 750}
	d, err := NewLengthDist([]HistSeries{a, b, a})
	if err != nil {
		t.Fatal(err)
	}
	if d.Requests != 70 || len(d.Buckets) != 3 || d.Mean != (2*(5*10+55*10)+25*30.0)/70 || d.Tilt != 0 {
		t.Fatalf("mixture %+v", d)
	}
	// cdf(50) = (2×10 + 2×10×40/90 + 30) / 70
	if got, want := d.cdf(50), (20+20*40.0/90+30)/70; math.Abs(got-want) > 1e-12 {
		t.Errorf("cdf(50) = %g, want %g", got, want)
	}
}

// Degenerate and hostile histograms: nothing, NaN, falling cumulative
// Counts (increase's extrapolation), bounds ≤ 0, mismatched lengths.
func TestLengthDistOdd(t *testing.T) {
	if _, err := NewLengthDist(nil); err == nil {
		t.Error("no series: no error")
	}
	if _, err := NewLengthDist([]HistSeries{{Bounds: []float64{10, inf()}, Counts: []float64{0, 0}}}); err == nil {
		t.Error("no requests: no error")
	}
	if _, err := NewLengthDist([]HistSeries{{Bounds: []float64{10}, Counts: []float64{1, 2}}}); err == nil {
		t.Error("mismatched bounds and counts: no error")
	}
	d, err := NewLengthDist([]HistSeries{{Bounds: []float64{-1, 0, 10, 20, 30, inf()}, Counts: []float64{5, 5, 10.2, 9.9, math.NaN(), 20}, Sum: 300}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range d.Buckets {
		if b.Lo < 0 || b.Hi <= b.Lo || b.Requests < 0 || math.IsNaN(b.Requests) {
			t.Errorf("bad bucket %+v", b)
		}
	}
	if d.Requests != 20 {
		t.Errorf("requests %g, want 20", d.Requests)
	}
}

func TestLengthDistCheck(t *testing.T) {
	for _, c := range []struct {
		d    LengthDist
		want string
	}{
		{LengthDist{}, "no buckets"},
		{LengthDist{Buckets: []LengthBucket{{Lo: 10, Hi: 5, Requests: 1}}}, "bucket 0: lo 10, hi 5"},
		{LengthDist{Buckets: []LengthBucket{{Lo: 0, Hi: math.Inf(1), Requests: 1}}}, "bucket 0"},
		{LengthDist{Buckets: []LengthBucket{{Lo: 0, Hi: 5, Requests: -1}}}, "requests -1"},
		{LengthDist{Buckets: []LengthBucket{{Lo: 0, Hi: 5, Requests: 0}}}, "no requests"},
	} {
		if err := c.d.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.d, err, c.want)
		}
	}
}
