package prober

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// History bounds: failures are kept in their own ring so that a burst of
// successes cannot push out the failure someone is looking for.
const (
	DefaultHistorySuccesses = 100
	DefaultHistoryFailures  = 100
	historyOutputBytes      = 2 << 10
	historyLogLines         = 100
	historyLogLineBytes     = 1 << 10
)

// HistoryEntry is a finished probe as kept in the history: the result
// without its per-token gaps (summarised instead) and with bounded text.
type HistoryEntry struct {
	Result   Result // ITL is nil, Output at most historyOutputBytes
	Error    string
	ITL      ITLSummary
	End      time.Time
	OnDemand bool     // run through /probe, not by the scheduler
	Log      []string // the probe's log lines, when it was traced
}

// ITLSummary describes a probe's inter-token latencies.
type ITLSummary struct {
	Count              int
	Min, P50, P90, Max time.Duration
	Mean               time.Duration
}

func summariseITL(itl []time.Duration) ITLSummary {
	if len(itl) == 0 {
		return ITLSummary{}
	}
	s := slices.Clone(itl)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	at := func(q float64) time.Duration { return s[int(q*float64(len(s)-1))] }
	return ITLSummary{Count: len(s), Min: s[0], P50: at(0.5), P90: at(0.9), Max: s[len(s)-1],
		Mean: sum / time.Duration(len(s))}
}

// History keeps the most recent probes in memory, bounded in count and
// size, for the landing page and /logs.
type History struct {
	mu               sync.Mutex
	success, failure ring
	now              func() time.Time
}

type ring struct {
	buf  []*HistoryEntry
	next int
}

// add keeps e, overwriting the oldest entry once the ring is full.
func (r *ring) add(e *HistoryEntry) {
	switch {
	case len(r.buf) < cap(r.buf):
		r.buf = append(r.buf, e)
	case len(r.buf) > 0:
		r.buf[r.next] = e
		r.next = (r.next + 1) % len(r.buf)
	}
}

// NewHistory keeps the last successes successful and failures failed probes.
func NewHistory(successes, failures int) *History {
	return &History{success: ring{buf: make([]*HistoryEntry, 0, successes)},
		failure: ring{buf: make([]*HistoryEntry, 0, failures)}, now: time.Now}
}

// Observe records a scheduled probe; it is a Scheduler Observer.
func (h *History) Observe(r *Result) { h.Add(r, nil, false) }

// Add records a finished probe with its log lines (may be nil).
func (h *History) Add(r *Result, log []string, onDemand bool) {
	e := &HistoryEntry{Result: *r.summary(), ITL: summariseITL(r.ITL), End: h.now(), OnDemand: onDemand}
	e.Result.Err = nil
	e.Result.Output = truncateBytes(r.Output, historyOutputBytes)
	e.Result.SLOViolations = slices.Clone(r.SLOViolations)
	e.Result.ValidationFailures = slices.Clone(r.ValidationFailures)
	if r.Err != nil {
		e.Error = truncate(r.Err.Error(), historyLogLineBytes)
	}
	for i, l := range log {
		if i == historyLogLines {
			e.Log = append(e.Log, "… log truncated")
			break
		}
		e.Log = append(e.Log, truncate(l, historyLogLineBytes))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Success() {
		h.success.add(e)
	} else {
		h.failure.add(e)
	}
}

// Get returns the probe with the given id, if it is still kept.
func (h *History) Get(id string) (*HistoryEntry, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range []*ring{&h.failure, &h.success} {
		for _, e := range r.buf {
			if e.Result.ID == id {
				return e, true
			}
		}
	}
	return nil, false
}

// Recent returns every kept probe, newest first.
func (h *History) Recent() []*HistoryEntry {
	h.mu.Lock()
	out := make([]*HistoryEntry, 0, len(h.success.buf)+len(h.failure.buf))
	out = append(out, h.success.buf...)
	out = append(out, h.failure.buf...)
	h.mu.Unlock()
	sort.SliceStable(out, func(a, b int) bool { return out[a].End.After(out[b].End) })
	return out
}
