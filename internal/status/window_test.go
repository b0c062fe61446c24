package status

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// Ratios count every probe of the hour, percentiles are values some probe
// measured (nearest rank), TPOT leaves out probes that had none, and the
// trends have one point per minute.
func TestWindowSummary(t *testing.T) {
	var w window
	rng := rand.New(rand.NewPCG(1, 2))
	// 40 minutes, a probe every 15 s: 160 probes, every 4th failed, every
	// 8th slow (missed its SLO); TTFT 1..160 ms in order.
	for i := range 160 {
		end := t0.Add(time.Duration(i) * 15 * time.Second)
		ok := i%4 != 3
		tpot, maxITL := 0.02, 0.3
		if i%2 == 0 {
			tpot, maxITL = -1, -1 // one output token: no TPOT, no gap
		}
		w.add(end, ok, ok && i%8 != 0, true, latencies{float64(i+1) / 1000, tpot, 2 * float64(i+1) / 1000, maxITL}, rng.IntN)
	}
	now := t0.Add(40 * time.Minute)
	s := w.summary(now)
	if s.Probes != 160 || s.OK != 120 || s.Good != 100 {
		t.Fatalf("probes %d ok %d good %d, want 160 120 100", s.Probes, s.OK, s.Good)
	}
	if s.SuccessRatio() != 0.75 || s.GoodRatio() != 100.0/160 {
		t.Errorf("ratios %v %v", s.SuccessRatio(), s.GoodRatio())
	}
	// The 120 successes have TTFT i+1 for i%4 != 3; nearest rank 60 and 119.
	var succ []float64
	for i := range 160 {
		if i%4 != 3 {
			succ = append(succ, float64(i+1))
		}
	}
	if want := ms(succ[59]); s.TTFT.N != 120 || s.TTFT.P50 != want {
		t.Errorf("TTFT %+v, want N 120, p50 %v", s.TTFT, want)
	}
	if want := ms(succ[118]); s.TTFT.P99 != want {
		t.Errorf("TTFT p99 %v, want %v", s.TTFT.P99, want)
	}
	// E2EL is twice the TTFT here, over the same successes.
	if s.E2EL.N != 120 || s.E2EL.P50 != 2*ms(succ[59]) || s.E2EL.P99 != 2*ms(succ[118]) {
		t.Errorf("E2EL %+v, want N 120, p50 %v, p99 %v", s.E2EL, 2*ms(succ[59]), 2*ms(succ[118]))
	}
	if s.TPOT.N != 40 || s.TPOT.P50 != 20*time.Millisecond {
		t.Errorf("TPOT %+v, want 40 probes at 20ms", s.TPOT)
	}
	if s.MaxITL.N != 40 || s.MaxITL.P99 != 300*time.Millisecond {
		t.Errorf("max ITL %+v, want 40 probes at 300ms", s.MaxITL)
	}
	// Minutes 0..39 of the hour are the last 40 points, minute 40 (now)
	// has no probe yet.
	if len(s.SuccessTrend) != Minutes || !math.IsNaN(s.SuccessTrend[Minutes-1]) || s.SuccessTrend[Minutes-2] != 0.75 {
		t.Errorf("success trend ends %v", s.SuccessTrend[Minutes-3:])
	}
	if !math.IsNaN(s.SuccessTrend[Minutes-42]) || math.IsNaN(s.SuccessTrend[Minutes-41]) {
		t.Errorf("success trend should start at minute 0: %v", s.SuccessTrend[:Minutes-38])
	}
	// Minute 0: successes at 0, 15, 30 s with TTFT 1, 2, 3 ms.
	if got := s.TTFTTrend[Minutes-41]; math.Abs(got-0.002) > 1e-9 {
		t.Errorf("TTFT trend of the first minute %v, want 0.002", got)
	}
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// What ended more than an hour ago is not counted, and a bucket slot is
// reused by the minute an hour later.
func TestWindowForgetsAfterAnHour(t *testing.T) {
	var w window
	w.add(t0, false, false, true, latencies{0, -1, 0, -1}, rand.IntN)
	w.add(t0.Add(30*time.Second), true, true, true, latencies{0.5, 0.01, 0.6, 0.02}, rand.IntN)
	if s := w.summary(t0.Add(59 * time.Minute)); s.Probes != 2 || s.TTFT.N != 1 {
		t.Fatalf("within the hour: %d probes, %d TTFTs", s.Probes, s.TTFT.N)
	}
	if s := w.summary(t0.Add(60 * time.Minute)); s.Probes != 0 || s.TTFT.N != 0 || !math.IsNaN(s.SuccessRatio()) {
		t.Errorf("an hour later: %d probes, %d TTFTs, ratio %v", s.Probes, s.TTFT.N, s.SuccessRatio())
	}
	w.add(t0.Add(60*time.Minute), true, false, true, latencies{0.1, -1, 0.2, -1}, rand.IntN) // same slot, next hour
	if s := w.summary(t0.Add(60 * time.Minute)); s.Probes != 1 || s.OK != 1 || s.Good != 0 {
		t.Errorf("the reused slot: %+v", s)
	}
}

// Probing every 100 ms for two hours keeps at most 360 latencies, all from
// the last hour, evenly spread: memory does not grow with the rate, and
// the counts stay exact.
func TestWindowBoundedAtHighRates(t *testing.T) {
	var w window
	rng := rand.New(rand.NewPCG(3, 4))
	const perMinute = 600
	for i := range 2 * 60 * perMinute {
		end := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		// TTFT rises through each minute: 0..599 ms.
		w.add(end, true, true, true, latencies{float64(i%perMinute) / 1000, -1, 1, -1}, rng.IntN)
	}
	if len(w.samples) != maxSamples || cap(w.samples) > 2*maxSamples {
		t.Errorf("%d samples (cap %d), want %d", len(w.samples), cap(w.samples), maxSamples)
	}
	now := t0.Add(2 * time.Hour)
	s := w.summary(now)
	if s.Probes != 59*perMinute || s.TTFT.N != 59*samplesPerMinute {
		t.Errorf("probes %d, TTFTs %d; want %d and %d (the current minute has none yet)", s.Probes, s.TTFT.N, 59*perMinute, 59*samplesPerMinute)
	}
	for _, x := range w.samples {
		if int64(x.at) < now.Add(-time.Hour).Unix() {
			t.Fatalf("a sample from %v outlived the hour", time.Unix(int64(x.at), 0))
		}
	}
	// A uniform sample of 0..599 ms: the median near 300 ms, not the
	// start of each minute.
	if s.TTFT.P50 < 200*time.Millisecond || s.TTFT.P50 > 400*time.Millisecond {
		t.Errorf("TTFT p50 %v: the sample is not uniform over the minute", s.TTFT.P50)
	}
}
