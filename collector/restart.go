package collector

import (
	"math"
	"strings"
	"time"

	"github.com/go-kit/log/level"
)

// Restart detection, for the prober's warm-up (prober/warmup.go): a
// scrape that shows another server process than the scrape before it.
// The server exports its process start time (vLLM's and SGLang's
// process_start_time_seconds, a single API server only) and it moved on,
// or one of its counters went down (every backend; an idle server that
// restarts leaves its counters at zero and goes unseen this way).

// LastRestart returns the instant after which target's server last
// restarted, as its scrapes show it: the new process's start time, kept
// between the two scrapes that saw the old and the new process (the
// clocks of prober and server may differ), or without a start time when
// the last scrape of the old process was sent. ok is false when no restart was seen
// since the prober started, or the target's server metrics are off.
func (m *Manager) LastRestart(target string) (at time.Time, ok bool) {
	m.mu.Lock()
	s := m.scrapers[target]
	m.mu.Unlock()
	if s == nil {
		return time.Time{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restartAt, !s.restartAt.IsZero()
}

// noteRestart compares a new good snapshot with the last one (s.data,
// not yet replaced) and records a restart; the caller holds s.mu and
// logs with logRestart after releasing it.
func (s *scraper) noteRestart(cur *snapshot) bool {
	at, ok := restartOf(s.data, cur)
	if ok {
		s.restartAt = at
	}
	return ok
}

func (s *scraper) logRestart(restarted bool) {
	if restarted {
		s.mu.Lock()
		at := s.restartAt
		s.mu.Unlock()
		level.Info(s.logger).Log("msg", "Server restart detected in its metrics", "url", s.spec.url, "restarted_after", at.UTC().Format(time.RFC3339Nano))
	}
}

// restartOf tells whether cur comes from another server process than
// prev, and since when (see LastRestart): never before prev's request
// went out, which the old process answered.
func restartOf(prev, cur *snapshot) (time.Time, bool) {
	if prev == nil || cur == nil || !cur.at.After(prev.at) {
		return time.Time{}, false
	}
	lo := prev.sent
	if lo.IsZero() || lo.After(prev.at) {
		lo = prev.at
	}
	ps, pok := startTime(prev)
	cs, cok := startTime(cur)
	if pok && cok && cs > ps+1 { // a second of slack for float rounding
		at := time.Unix(0, int64(cs*1e9))
		if at.Before(lo) {
			at = lo
		}
		if at.After(cur.at) {
			at = cur.at
		}
		return at, true
	}
	if countersWentDown(prev, cur) {
		return lo, true
	}
	return time.Time{}, false
}

// startTime is the newest process start time in a snapshot, if any.
func startTime(snap *snapshot) (float64, bool) {
	v, ok := math.Inf(-1), false
	for _, smp := range snap.samples {
		if smp.fam == famStartTime {
			v, ok = max(v, smp.value), true
		}
	}
	return v, ok
}

// countersWentDown reports whether a counter or histogram count present
// in both snapshots, series by series, is lower in cur.
func countersWentDown(prev, cur *snapshot) bool {
	old := map[string]float64{}
	for _, smp := range prev.samples {
		if v, ok := counterValue(smp); ok {
			old[seriesKey(smp)] = v
		}
	}
	for _, smp := range cur.samples {
		v, ok := counterValue(smp)
		if !ok {
			continue
		}
		if p, seen := old[seriesKey(smp)]; seen && v < p {
			return true
		}
	}
	return false
}

func counterValue(smp sample) (float64, bool) {
	switch {
	case smp.hist != nil:
		return float64(smp.hist.count), true
	case smp.fam.kind == kindCounter:
		return smp.value, true
	}
	return 0, false
}

func seriesKey(smp sample) string {
	return smp.fam.name + "\xff" + strings.Join(smp.labels, "\xff")
}
