package collector

import (
	"hash/maphash"
	"math"
	"time"

	"github.com/go-kit/log/level"
)

// Restart detection, for the prober's warm-up (prober/warmup.go): a
// scrape that shows a new server process. One server_metrics URL may
// reach several replicas (a Kubernetes Service), each scrape landing on
// any of them, so a scrape is compared with every process seen lately,
// not with the scrape before it, and a restart is one event per process:
//
//   - with a process start time (vLLM's and SGLang's
//     process_start_time_seconds, a single API server only): a start time
//     never seen, later than every one seen, of a process that started
//     after the first scrape (an older replica seen late is no restart);
//   - by counters (every backend): counters that went down against every
//     process seen lately of the same start time (or none), and stayed so
//     on the next scrape too (a drop that flips back was another
//     replica). An idle server that restarts leaves its counters at zero
//     and goes unseen this way.

// Bounds of what a scraper remembers of the processes behind its URL.
const (
	maxStartTimes = 16 // start times (a few floats)
	maxLineages   = 4  // counter sets, one per process: replicas behind one URL
)

// restartState is what one scraper remembers to tell a restart from a
// scrape that landed on another replica; guarded by the scraper's mu.
type restartState struct {
	at     time.Time // the last restart, see LastRestart
	first  time.Time // when the first good scrape's request went out
	starts []float64 // process start times seen, oldest first
	// lineages are the counters of the processes seen lately, most
	// recently seen first; pending is a process whose counters went down
	// against all of them, a restart once the next scrape confirms it.
	lineages  []lineage
	pending   *lineage
	pendingAt time.Time
	// replicas counts scrapes that landed on another process seen lately
	// than the scrape before: several replicas behind the URL, whose
	// counters no rate can be taken over (capacity.go).
	replicas int
}

// lineage is the counters of one process, and its start time (NaN when
// the server exports none): only a process of the same start time can
// continue it.
type lineage struct {
	start float64
	ctr   map[uint64]float64 // by seriesHash: 8 bytes a key, whatever the labels
}

func (l lineage) sameStart(start float64) bool {
	return math.Abs(l.start-start) <= 1 || (math.IsNaN(l.start) && math.IsNaN(start))
}

// LastRestart returns the instant after which target's server last
// restarted, as its scrapes show it: the new process's start time, kept
// between the two scrapes that saw the old and the new process (the
// clocks of prober and server may differ), or without a start time when
// the last scrape before the counters went down was sent. ok is false when
// no restart was seen since the prober started, or the target's server
// metrics are off.
func (m *Manager) LastRestart(target string) (at time.Time, ok bool) {
	m.mu.Lock()
	s := m.scrapers[target]
	m.mu.Unlock()
	if s == nil {
		return time.Time{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restart.at, !s.restart.at.IsZero()
}

// noteRestart compares a new good snapshot with the processes seen so far
// (s.data is the last snapshot, not yet replaced) and records a restart;
// the caller holds s.mu and logs with logRestart after releasing it.
func (s *scraper) noteRestart(cur *snapshot) bool {
	at, ok := s.restart.note(s.data, cur)
	if ok {
		s.restart.at = at
	}
	return ok
}

func (s *scraper) logRestart(restarted bool) {
	if restarted {
		s.mu.Lock()
		at := s.restart.at
		s.mu.Unlock()
		level.Info(s.logger).Log("msg", "Server restart detected in its metrics", "url", s.spec.url, "restarted_after", at.UTC().Format(time.RFC3339Nano))
	}
}

// note tells whether cur, the snapshot after prev (nil for the first),
// shows a restart, and since when (see LastRestart): never before prev's
// request went out, which the old process answered.
func (r *restartState) note(prev, cur *snapshot) (time.Time, bool) {
	if cur == nil || (prev != nil && !cur.at.After(prev.at)) {
		return time.Time{}, false
	}
	if r.first.IsZero() {
		r.first = sentOf(cur)
	}
	lo := r.first
	if prev != nil {
		lo = sentOf(prev)
	}
	cs, ok := startTime(cur)
	if !ok {
		cs = math.NaN()
	} else if at, restarted := r.noteStart(cs, lo, cur.at); restarted {
		r.remember(lineage{cs, counterValues(cur)})
		return at, true
	}
	// The same process start time (an engine restarted under its API
	// server), or none: the counters tell.
	return r.noteCounters(lineage{cs, counterValues(cur)}, lo)
}

// sentOf is when snap's request went out, or when it came back.
func sentOf(snap *snapshot) time.Time {
	if snap.sent.IsZero() || snap.sent.After(snap.at) {
		return snap.at
	}
	return snap.sent
}

// noteStart: a restart is a start time not seen before, later than all
// seen and than the first scrape (a second of slack for rounding: some
// servers export whole seconds).
func (r *restartState) noteStart(cs float64, lo, now time.Time) (time.Time, bool) {
	newest := math.Inf(-1)
	for _, v := range r.starts {
		if math.Abs(v-cs) <= 1 {
			return time.Time{}, false // a process seen before
		}
		newest = max(newest, v)
	}
	first := len(r.starts) == 0
	if len(r.starts) == maxStartTimes {
		r.starts = r.starts[1:]
	}
	r.starts = append(r.starts, cs)
	if first || cs <= newest+1 || cs < float64(r.first.UnixNano())/1e9-1 {
		return time.Time{}, false
	}
	at := time.Unix(0, int64(cs*1e9))
	if at.Before(lo) {
		at = lo
	}
	if at.After(now) {
		at = now
	}
	return at, true
}

// noteCounters: cur continues a process seen lately (of its start time)
// if none of their common counters went down. One that continues none is
// pending, and a restart when the next scrape continues it (not an older
// process).
func (r *restartState) noteCounters(cur lineage, lo time.Time) (time.Time, bool) {
	pending, pendingAt := r.pending, r.pendingAt
	r.pending, r.pendingAt = nil, time.Time{}
	known := false
	for i, l := range r.lineages {
		if !l.sameStart(cur.start) {
			continue
		}
		known = true
		if !wentDown(l.ctr, cur.ctr) {
			// A known process: a pending drop flipped back, so it was
			// another replica, remembered as one; or not the process of
			// the last scrape, another replica too.
			if i > 0 || pending != nil {
				r.replicas++
			}
			r.lineages = append(r.lineages[:i], r.lineages[i+1:]...)
			if pending != nil {
				r.remember(*pending)
			}
			r.remember(cur) // first: the process of the last scrape
			return time.Time{}, false
		}
	}
	switch {
	case !known: // the first scrape of this process
		r.remember(cur)
	case pending != nil && pending.sameStart(cur.start) && !wentDown(pending.ctr, cur.ctr):
		r.remember(cur) // confirmed: a new process
		return pendingAt, true
	default:
		r.pending, r.pendingAt = &cur, lo
	}
	return time.Time{}, false
}

// remember puts l first among the lineages, forgetting the least recent.
func (r *restartState) remember(l lineage) {
	if len(r.lineages) == maxLineages {
		r.lineages = r.lineages[:maxLineages-1]
	}
	r.lineages = append([]lineage{l}, r.lineages...)
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

// counterValues are the counters and histogram counts of a snapshot, by
// series.
func counterValues(snap *snapshot) map[uint64]float64 {
	out := make(map[uint64]float64, len(snap.samples))
	for _, smp := range snap.samples {
		if v, ok := counterValue(smp); ok {
			out[seriesHash(smp)] = v
		}
	}
	return out
}

// wentDown reports whether a series present in both is lower in cur.
func wentDown(prev, cur map[uint64]float64) bool {
	for k, v := range cur {
		if p, seen := prev[k]; seen && v < p {
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

// seriesSeed keys the series hashes; a collision (one in 2^64 per pair)
// would at worst hide or show one counter's drop.
var seriesSeed = maphash.MakeSeed()

func seriesHash(smp sample) uint64 {
	var h maphash.Hash
	h.SetSeed(seriesSeed)
	_, _ = h.WriteString(smp.fam.name)
	for _, l := range smp.labels {
		_ = h.WriteByte(0xff)
		_, _ = h.WriteString(l)
	}
	return h.Sum64()
}
