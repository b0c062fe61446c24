package collector

import (
	"math"
	"time"
)

// ServerStatus is a target's latest capacity signals, for the status
// page. A signal the server does not export is NaN.
type ServerStatus struct {
	At              time.Time // when they were scraped
	KVCacheUsage    float64   // 0..1, the fullest engine's
	RequestsRunning float64   // summed over engines
	RequestsWaiting float64   // summed over engines
	Preemptions     float64   // counter, summed over engines
}

// ServerStatus returns the target's signals from its latest scrape, unless
// it has none or they are too old to pass for current (as on /metrics).
func (m *Manager) ServerStatus(target string) (ServerStatus, bool) {
	m.mu.Lock()
	s := m.scrapers[target]
	m.mu.Unlock()
	if s == nil {
		return ServerStatus{}, false
	}
	s.mu.Lock()
	data := s.data // never changed once stored: read without the lock
	s.mu.Unlock()
	if data == nil || m.now().Sub(data.at) > s.spec.staleAfter() {
		return ServerStatus{}, false
	}
	nan := math.NaN()
	st := ServerStatus{At: data.at, KVCacheUsage: nan, RequestsRunning: nan, RequestsWaiting: nan, Preemptions: nan}
	for _, smp := range data.samples {
		switch smp.fam {
		case famKVCacheUsage:
			if math.IsNaN(st.KVCacheUsage) || smp.value > st.KVCacheUsage {
				st.KVCacheUsage = smp.value
			}
		case famRequestsRunning:
			st.RequestsRunning = addNaN(st.RequestsRunning, smp.value)
		case famRequestsWaiting:
			st.RequestsWaiting = addNaN(st.RequestsWaiting, smp.value)
		case famPreemptions:
			st.Preemptions = addNaN(st.Preemptions, smp.value)
		}
	}
	return st, true
}

// addNaN adds v to sum, NaN standing for "none yet".
func addNaN(sum, v float64) float64 {
	if math.IsNaN(sum) {
		return v
	}
	return sum + v
}

// Backend is the backend of the target's latest scrape: the configured
// one, or the one its exposition showed when told to detect (auto).
// False before a scrape, or when nothing matched.
func (m *Manager) Backend(target string) (string, bool) {
	m.mu.Lock()
	s := m.scrapers[target]
	m.mu.Unlock()
	if s == nil {
		return "", false
	}
	s.mu.Lock()
	data := s.data
	s.mu.Unlock()
	if data == nil || data.backend == "" || data.backend == backendUnknown {
		return "", false
	}
	return data.backend, true
}
