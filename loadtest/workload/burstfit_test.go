package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// minuteCounts counts the arrivals bench's own generator plans per
// minute, for the given minutes at each rate in turn (a step per hour
// when several are given).
func minuteCounts(shape float64, seed int64, minutes int, rates ...float64) []float64 {
	counts := make([]float64, minutes)
	var offset time.Duration
	per := minutes / len(rates)
	for k, r := range rates {
		a := stats.NewArrivals(r, shape, seed+int64(k))
		end := time.Duration(per) * time.Minute
		for {
			t := a.Next()
			if t >= end {
				break
			}
			counts[int((offset+t)/time.Minute)]++
		}
		offset += end
	}
	return counts
}

// Recovery: counts from bench's arrival generator with a known gamma
// shape, a day of minutes at 2 req/s, fitted. The fit's relative
// standard error is √(3/1439) ≈ 4.6 %; the tolerance is 15 % (over 3
// standard errors), and the seeds are fixed.
func TestFitBurstinessRecoversShape(t *testing.T) {
	for _, shape := range []float64{0.25, 0.5, 1, 2, 4} {
		f := FitBurstiness(minuteCounts(shape, 7, 1440, 2), 60)
		if f.Shape <= 0 || math.Abs(f.Shape-shape)/shape > 0.15 {
			t.Errorf("shape %g: fitted %+v", shape, f)
			continue
		}
		if !(f.Low < shape && shape < f.High) {
			t.Errorf("shape %g outside the fit's interval %.3f–%.3f", shape, f.Low, f.High)
		}
		if f.Note != "" || f.Clamped {
			t.Errorf("shape %g: stationary counts noted %q clamped %v", shape, f.Note, f.Clamped)
		}
		t.Logf("shape %g: fitted %.3f (%.3f–%.3f), raw dispersion %.3f", shape, f.Shape, f.Low, f.High, f.RawDispersion)
	}
}

// A day whose rate steps every hour between 1 and 6 req/s (diurnal): the
// plain dispersion is far off, the differenced fit still recovers the
// shape, and the note says the rate varied.
func TestFitBurstinessDetrends(t *testing.T) {
	var rates []float64
	for h := range 24 {
		rates = append(rates, 1+5*math.Abs(math.Sin(math.Pi*float64(h)/24)))
	}
	f := FitBurstiness(minuteCounts(0.5, 11, 1440, rates...), 60)
	if math.Abs(f.Shape-0.5)/0.5 > 0.15 {
		t.Errorf("fitted %+v, want shape 0.5 within 15%%", f)
	}
	if 1/f.RawDispersion > 0.4 || !strings.Contains(f.Note, "rate varied") {
		t.Errorf("raw dispersion %.2f (shape %.2f), note %q: the trend should show and be noted", f.RawDispersion, 1/f.RawDispersion, f.Note)
	}
}

// What cannot support a fit says so, and odd counts do not break it.
func TestFitBurstinessOdd(t *testing.T) {
	for _, c := range []struct {
		name   string
		counts []float64
		want   string
	}{
		{"empty", nil, "only 0 intervals"},
		{"short", minuteCounts(1, 1, 20, 2), "only 19 intervals"},
		{"trickle", minuteCounts(1, 1, 600, 0.05), "too little traffic"},
		{"all NaN", []float64{math.NaN(), math.NaN(), math.NaN()}, "only 0 intervals"},
	} {
		f := FitBurstiness(c.counts, 60)
		if f.Shape != 0 || !strings.Contains(f.Note, c.want) || !strings.Contains(f.Describe(), "no fit") {
			t.Errorf("%s: %+v, want no fit noting %q", c.name, f, c.want)
		}
	}
	flat := make([]float64, 100)
	for i := range flat {
		flat[i] = 60
	}
	if f := FitBurstiness(flat, 60); f.Shape != MaxShape || !f.Clamped {
		t.Errorf("perfectly regular counts: %+v, want the shape clamped at %g", f, MaxShape)
	}
	// Gaps (NaN) split the differences; a huge burst clamps low.
	c := minuteCounts(1, 5, 300, 2)
	for i := 50; i < 60; i++ {
		c[i] = math.NaN()
	}
	if f := FitBurstiness(c, 60); f.Intervals != 288 || math.Abs(f.Shape-1) > 0.25 {
		t.Errorf("with a 10-minute gap: %+v, want 288 differences and shape about 1", f)
	}
	for i := range c {
		if i%2 == 0 {
			c[i] = 10000
		}
	}
	if f := FitBurstiness(c, 60); f.Shape != MinShape || !f.Clamped || !strings.Contains(f.Describe(), "clamped") {
		t.Errorf("alternating bursts: %+v, want the shape clamped at %g", f, MinShape)
	}
}

// departureCounts counts per minute, over days, the requests of bench's
// arrival generator (2 req/s, gamma shape) finishing after exponential
// durations of mean svc seconds: what the server's counter sees.
func departureCounts(shape, svc float64, days int) []float64 {
	a := stats.NewArrivals(2, shape, 3)
	rng := rand.New(rand.NewPCG(1, 1))
	counts := make([]float64, days*1440)
	end := time.Duration(len(counts)) * time.Minute
	for {
		at := a.Next()
		if at >= end {
			return counts
		}
		if i := int((at + time.Duration(rng.ExpFloat64()*svc*float64(time.Second))) / time.Minute); i < len(counts) {
			counts[i]++
		}
	}
}

// Finished requests trail arrivals by their duration, which smooths
// bursts over a short interval: per minute, gamma 0.3 arrivals with 60 s
// durations fit as about 0.7 and gamma 3 with 10 s as about 2. Counted in
// intervals of 30 mean durations (serviceBlock) the fit is back within
// 25 % (a week of minutes; seeds fixed).
func TestFitBurstinessDepartures(t *testing.T) {
	for _, c := range []struct{ shape, svc float64 }{{0.3, 60}, {3, 10}} {
		counts := departureCounts(c.shape, c.svc, 7)
		naive := FitBurstiness(counts, 60)
		k := serviceBlock(c.svc, time.Minute, len(counts), 1)
		f := FitBurstiness(blockCounts(counts, k), float64(k)*60)
		if math.Abs(f.Shape-c.shape)/c.shape > 0.25 || math.Abs(naive.Shape-c.shape)/c.shape < 0.3 {
			t.Errorf("shape %g, durations %gs: per minute %.3f, per %d minutes %.3f; want the latter within 25%%", c.shape, c.svc, naive.Shape, k, f.Shape)
		}
		t.Logf("shape %g, durations %gs: per minute %.3f, per %d minutes %.3f (%.3f–%.3f)", c.shape, c.svc, naive.Shape, k, f.Shape, f.Low, f.High)
	}
	for _, c := range []struct {
		svc        float64
		n, k, want int
	}{
		{0, 1440, 1, 1}, {math.NaN(), 1440, 1, 1}, {1, 1440, 1, 1}, {10, 1440, 1, 5}, {60, 1440, 1, 14},
		{60, 10080, 1, 30}, {10, 1440, 2, 6}, {10, 1440, 8, 8}, {math.Inf(1), 1440, 1, 1},
	} {
		if got := serviceBlock(c.svc, time.Minute, c.n, c.k); got != c.want {
			t.Errorf("serviceBlock(%g s, %d steps, scrape %d) = %d, want %d", c.svc, c.n, c.k, got, c.want)
		}
	}
}
