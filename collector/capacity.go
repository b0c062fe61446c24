package collector

import (
	"math"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Live headroom against a measured knee (config.Capacity): the served
// request rate is the increase of the server's own finished-request
// counters over the target's rate window, summed over reason and engine,
// computed here from the scrapes this scraper already makes, so that the
// headroom needs no recording rule and is there with the scrape.
var (
	capacityLabels  = []string{"target", "model"}
	descKnee        = prometheus.NewDesc("llm_prober_capacity_knee_requests_per_second", "The knee the target's server was measured at (capacity: in the config): the request rate it completed within its SLOs.", capacityLabels, nil)
	descMinHeadroom = prometheus.NewDesc("llm_prober_capacity_min_headroom_ratio", "The configured share of the knee that must stay free (capacity.min_headroom_ratio); the headroom alert fires below it.", capacityLabels, nil)
	descServedRate  = prometheus.NewDesc("llm_prober_capacity_served_requests_per_second", "Requests the server finished per second over the rate window, from its own counters (resets counted as Prometheus's rate() does); absent with under half a window of scrapes, stale data, or scrapes of several replicas behind the URL in the window.", capacityLabels, nil)
	descHeadroom    = prometheus.NewDesc("llm_prober_capacity_headroom_ratio", "1 - served request rate / knee: the share of the knee still free; negative past the knee; absent when the served rate is.", capacityLabels, nil)
	descKneeInfo    = prometheus.NewDesc("llm_prober_capacity_knee_info", "Where the target's knee comes from (source: config or file) and the workload the sweep measured it with; the knee holds only for that workload.", []string{"target", "model", "source", "workload"}, nil)
)

// maxRatePoints bounds the points a window keeps, about, whatever the
// scrape interval (a 10 ms interval would keep 30,000 for 5 minutes).
const maxRatePoints = 1024

// ratePoint is the served-request total after a good scrape.
type ratePoint struct {
	at    time.Time
	total float64
}

// servedRate follows the server's finished-request counters across scrapes.
// Guarded by the scraper's mu.
type servedRate struct {
	prev   map[string]float64 // each counter series at the last good scrape
	total  float64            // increase since tracking began
	points []ratePoint        // oldest first: the window and one point before it
	// mixedAt is the last scrape that landed on another replica than the
	// one before (restart.go): the total jumped between two processes'
	// counters, so no rate is taken over a window that holds it.
	mixedAt time.Time
}

// observe adds a good snapshot. As in Prometheus's rate(), a counter that
// went down restarted from 0 (its whole value is new), and a series seen
// for the first time adds nothing (its value predates the window). A
// snapshot without the counter adds no point: the rate then goes stale.
// otherReplica says the scrape landed on another process than the last.
func (r *servedRate) observe(at time.Time, backend string, samples []sample, window time.Duration, otherReplica bool) {
	if otherReplica {
		r.mixedAt = at
	}
	cur := map[string]float64{}
	for _, s := range samples {
		// A NaN or infinite counter (a broken exposition) is left out: it
		// would stick in the total for good.
		if s.fam == famRequestsFinished && !math.IsNaN(s.value) && !math.IsInf(s.value, 0) {
			cur[backend+"\xff"+strings.Join(s.labels, "\xff")] = s.value
		}
	}
	if len(cur) == 0 {
		return
	}
	for k, v := range cur {
		if p, ok := r.prev[k]; ok {
			if v >= p {
				r.total += v - p
			} else {
				r.total += v
			}
		}
	}
	r.prev = cur
	if n := len(r.points); n >= 2 && at.Sub(r.points[n-2].at) < window/maxRatePoints {
		r.points[n-1] = ratePoint{at, r.total} // scrapes closer than that: keep the newest
	} else {
		r.points = append(r.points, ratePoint{at, r.total})
	}
	for len(r.points) > 2 && !r.points[1].at.After(at.Add(-window)) {
		r.points = r.points[1:]
	}
}

// rate is the served request rate over the window ending at the last
// point. ok is false with under half a window of history (a rate of a
// minute would pass for the window's), when the last point is older than
// stale (failing scrapes: no value rather than an old one), and while the
// window holds a scrape of another replica behind the same URL.
func (r *servedRate) rate(now time.Time, window, stale time.Duration) (float64, bool) {
	if len(r.points) < 2 {
		return 0, false
	}
	first, last := r.points[0], r.points[len(r.points)-1]
	span := last.at.Sub(first.at)
	if now.Sub(last.at) > stale || span < window/2 || span <= 0 || !r.mixedAt.Before(first.at) {
		return 0, false
	}
	return (last.total - first.total) / span.Seconds(), true
}

// collectCapacity sends the target's capacity series, if it has a knee.
func (s *scraper) collectCapacity(ch chan<- prometheus.Metric, now time.Time) {
	cp := s.spec.capacity
	if cp == nil || !(cp.Knee > 0) {
		return
	}
	s.mu.Lock()
	rate, ok := s.served.rate(now, time.Duration(cp.RateWindow), s.spec.staleAfter())
	s.mu.Unlock()
	lv := []string{s.spec.name, s.spec.model}
	sendFixed(ch, descKnee, prometheus.GaugeValue, cp.Knee, lv...)
	sendFixed(ch, descMinHeadroom, prometheus.GaugeValue, cp.MinHeadroomRatio, lv...)
	_ = send(ch, descKneeInfo, prometheus.GaugeValue, 1, s.spec.name, s.spec.model, cp.Source, cp.Workload)
	if ok {
		sendFixed(ch, descServedRate, prometheus.GaugeValue, rate, lv...)
		sendFixed(ch, descHeadroom, prometheus.GaugeValue, 1-rate/cp.Knee, lv...)
	}
}
