package prober

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
)

// Classic bucket bounds hold every bound of vLLM's own histograms, so that
// client-side and server-side distributions compare bucket by bucket, plus
// bounds where vLLM's are too coarse for percentiles and real servers
// live: at most 33 % apart from 3 ms to 0.5 s for ITL and TPOT (vLLM
// jumps from 10 to 25 ms) and from 20 ms to 5 s for TTFT. Every bound
// costs a series per target: the native buckets on the same series (9 %
// apart) carry the fine detail. The native buckets on the same series
// (9 % apart) are finer still; docs/metrics-contract.md gives the measured
// quantile error of each.
var (
	TTFTBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	ITLBuckets  = []float64{0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.0075, 0.01, 0.0125, 0.015, 0.0175, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.06, 0.075, 0.1, 0.125, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	// MaxITLBuckets bound a probe's worst gap: stalls of 25 ms to 80 s,
	// densest around the 0.1-2 s where max_itl SLOs sit. Half the ITL
	// bounds, as every bound is a series per target; the native buckets
	// carry the detail.
	MaxITLBuckets = []float64{0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 40, 80}
	// HeadersBuckets are vLLM's TTFT bounds: headers come in milliseconds,
	// and nobody takes percentiles of them to a few per cent.
	HeadersBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	E2EBuckets     = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 3, 4, 5, 7.5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}
	// ScheduleDelayBuckets resolve the sub-millisecond lateness of a
	// healthy scheduler as well as the seconds of a starved one.
	ScheduleDelayBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
)

// Native buckets on the same series as the classic ones: growth factor
// 1.09 (schema 3), at most 100 buckets, a fresh start at most hourly.
const (
	nativeSchema     = 3
	nativeMaxBuckets = 100
	nativeMinReset   = time.Hour
)

// Metrics holds the probe metrics: per-schedule series in a compact store
// written straight to the exposition (see package exposition), and two
// process-wide metrics registered with client_golang.
type Metrics struct {
	mu        sync.RWMutex
	schedules map[scheduleKey]*schedule
	order     []*schedule // sorted by key; replaced, never changed in place
	dirty     bool        // order is stale: a schedule came or went
	location  string      // label on every schedule's series (metrics_location.go)

	inFlight      prometheus.Gauge
	scheduleDelay prometheus.Histogram
}

// NewMetrics creates the probe metrics and registers the process-wide ones
// with reg. The per-schedule series are written by WriteFamilies (the
// /metrics handler) and gathered by Gather (tests, the /probe endpoint).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		schedules: map[scheduleKey]*schedule{},
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "llm_prober_probes_in_flight",
			Help: "Probes currently running."}),
		scheduleDelay: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "llm_prober_schedule_delay_seconds",
			Help:    "How late probes started after their scheduled slot (timer lateness, waiting for a max_concurrent_probes slot); a growing tail means the prober is short of CPU or slots.",
			Buckets: ScheduleDelayBuckets, NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: nativeMaxBuckets,
			NativeHistogramMinResetDuration: nativeMinReset}),
	}
	reg.MustRegister(m.inFlight, m.scheduleDelay)
	return m
}

// Init creates every series of a schedule at zero so that rate() and
// absent-based alerts work from its first scrape. For an existing
// schedule it updates the interval and SLOs and keeps the counts.
func (m *Metrics) Init(target, model, module string, interval time.Duration, slos map[string]time.Duration) {
	k := scheduleKey{target, model, module}
	m.mu.Lock()
	s := m.schedules[k]
	if s == nil {
		s = newSchedule(k, time.Now())
		m.addLocation(s)
		m.schedules[k] = s
		m.dirty = true
	}
	m.mu.Unlock()
	s.configure(interval, slos)
}

// InitSchedule initialises the series of a configured (target, module).
func (m *Metrics) InitSchedule(t *config.Target, mod *config.Module) {
	m.Init(t.Name, t.Model, mod.Name, time.Duration(t.Interval), map[string]time.Duration{
		"ttft": time.Duration(mod.SLO.TTFT), "tpot": time.Duration(mod.SLO.TPOT), "e2el": time.Duration(mod.SLO.E2EL),
		"max_itl": time.Duration(mod.SLO.MaxITL),
	})
	m.configurePrefill(t, mod)
}

// Delete removes every series of a schedule (a removed target or module).
func (m *Metrics) Delete(target, model, module string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := scheduleKey{target, model, module}
	if _, ok := m.schedules[k]; ok {
		delete(m.schedules, k)
		m.dirty = true
	}
}

// Record adds one finished probe. A probe of a schedule that is not (or no
// longer) initialised is dropped, so that a probe finishing after its
// target was removed does not bring the series back.
func (m *Metrics) Record(r *Result, end time.Time) {
	if s := m.get(r.Target, r.Model, r.Module); s != nil {
		s.record(r, end)
	}
}

// Skip counts a scheduled probe that did not run.
func (m *Metrics) Skip(target, model, module, reason string) {
	if s := m.get(target, model, module); s != nil {
		s.skip(reason)
	}
}

func (m *Metrics) get(target, model, module string) *schedule {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.schedules[scheduleKey{target, model, module}]
}

// snapshot returns the schedules in order, sorting them first if some
// came or went: once per scrape, not once per Init, so that a config of
// 10,000 targets loads in linear time.
func (m *Metrics) snapshot() []*schedule {
	m.mu.RLock()
	order, dirty := m.order, m.dirty
	m.mu.RUnlock()
	if !dirty {
		return order
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirty {
		m.order = slices.SortedFunc(maps.Values(m.schedules), func(a, b *schedule) int { return a.key.compare(b.key) })
		m.dirty = false
	}
	return m.order
}
