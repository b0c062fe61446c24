package promsource

import (
	"testing"
	"time"
)

// The typical day: each hour's peak averaged over days, a rate counted in
// the hour of its interval's middle; nothing at all is all zeros.
func TestRatesByHour(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	r := &Rates{RateInterval: 5 * time.Minute, Step: time.Minute, Window: 48 * time.Hour}
	add := func(t time.Time, v float64) { r.Points = append(r.Points, Point{T: t, V: v}) }
	add(day.Add(14*time.Hour+30*time.Minute), 10)
	add(day.Add(14*time.Hour+40*time.Minute), 4)
	add(day.Add(38*time.Hour+10*time.Minute), 6)             // day two, 14:10
	add(day.Add(15*time.Hour+2*time.Minute), 50)             // middle 14:59:30: hour 14 of day one
	add(day.Add(9*time.Hour), 1)                             // 08:57:30
	add(day.Add(9*time.Hour+3*time.Minute+time.Second), 0.5) // 09:00:31
	hours := r.ByHour(time.UTC)
	if h := hours[14]; h.Days != 2 || h.MeanPeak != 28 || h.MaxPeak != 50 {
		t.Errorf("hour 14: %+v, want the mean of 50 and 6 over 2 days", h)
	}
	if hours[8].Days != 1 || hours[8].MeanPeak != 1 || hours[9].MeanPeak != 0.5 || hours[15].Days != 0 {
		t.Errorf("hours 8, 9, 15: %+v %+v %+v", hours[8], hours[9], hours[15])
	}
	if b := BusiestHour(hours); b.Hour != 14 {
		t.Errorf("busiest %+v", b)
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	if b := BusiestHour(r.ByHour(paris)); b.Hour != 15 {
		t.Errorf("busiest in Paris %+v, want 15", b)
	}
	if r.Max().V != 50 || r.Quantile(0.5) != 4 || r.Quantile(1) != 50 || r.Quantile(0) != 0.5 {
		t.Errorf("max %v, median %v", r.Max(), r.Quantile(0.5))
	}
	if !r.Partial() {
		t.Error("a day of 2 not partial")
	}

	empty := &Rates{Window: time.Hour}
	if empty.Mean() != 0 || empty.Quantile(0.99) != 0 || empty.History() != 0 || BusiestHour(empty.ByHour(time.UTC)).Days != 0 {
		t.Error("empty rates")
	}
}

// A fifth of the rate interval, or coarser so a window stays under
// Prometheus's 11,000 points a series.
func TestStep(t *testing.T) {
	for _, c := range []struct{ ri, window, want time.Duration }{
		{5 * time.Minute, 7 * 24 * time.Hour, 61 * time.Second},
		{5 * time.Minute, 24 * time.Hour, time.Minute},
		{5 * time.Minute, 60 * 24 * time.Hour, 519 * time.Second},
		{10 * time.Second, time.Minute, 2 * time.Second},
		{time.Second, time.Second, time.Second},
	} {
		s := &Source{cfg: Config{RateInterval: c.ri, Window: c.window}}
		if got := s.Step(); got != c.want || c.window/got > maxPoints+1 {
			t.Errorf("rate interval %s, window %s: step %s, want %s", c.ri, c.window, got, c.want)
		}
	}
}
