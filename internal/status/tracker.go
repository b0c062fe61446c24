package status

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/llm-prober/llm-prober/prober"
)

// Tracker keeps the windows of every (target, module) and target. Observe
// is cheap enough for every probe: two short critical sections, and a
// read of the server's latest scrape once a minute per target (on every
// probe of a target whose server metrics are off: a map lookup).
// Memory is bounded: per (target, module) about 1 KB plus 12 bytes per
// successful probe kept (at most 360: 1.8 KB at a 60 s interval), per
// target with server metrics about 1.3 KB (BenchmarkObserve: 3.3 KB per
// pair with both); windows idle for an hour (removed from the config) are
// dropped.
type Tracker struct {
	server func(target string) (ServerReading, bool)
	now    func() time.Time

	mu        sync.Mutex
	jobs      map[jobKey]*jobEntry
	servers   map[string]*serverEntry
	lastSweep time.Time
}

type jobKey struct{ target, module string }

type jobEntry struct {
	mu sync.Mutex
	w  window
}

type serverEntry struct {
	mu   sync.Mutex
	read int64         // the Unix minute the server's signals were last read
	w    *serverWindow // nil until a first reading: most targets have none
}

// NewTracker returns a Tracker; server, if not nil, gives a target's
// latest server signals (the collector's), read as probes of it finish.
func NewTracker(server func(target string) (ServerReading, bool)) *Tracker {
	return &Tracker{server: server, now: time.Now, jobs: map[jobKey]*jobEntry{}, servers: map[string]*serverEntry{}}
}

// Observe records a finished probe; it is a prober.Observer.
func (t *Tracker) Observe(r *prober.Result) {
	now := t.now()
	k := jobKey{r.Target, r.Module}
	t.mu.Lock()
	if now.Sub(t.lastSweep) >= time.Minute {
		t.sweep(now)
	}
	j := t.jobs[k]
	if j == nil {
		j = &jobEntry{w: window{last: now}} // not idle before its first add
		t.jobs[k] = j
	}
	srv := t.servers[r.Target]
	if srv == nil && t.server != nil {
		srv = &serverEntry{read: -1}
		t.servers[r.Target] = srv
	}
	t.mu.Unlock()

	tpot := -1.0
	if r.TPOT > 0 {
		tpot = r.TPOT.Seconds()
	}
	maxITL := -1.0
	if r.ContentChunks > 1 {
		maxITL = r.MaxITL.Seconds()
	}
	// As in the metrics: a successful warm-up probe is good, its
	// latencies stay out of the percentiles (prober/warmup.go).
	warm := r.Warmup != "" && r.Success()
	j.mu.Lock()
	j.w.add(now, r.Success(), r.Good || warm, !warm, latencies{r.TTFT.Seconds(), tpot, r.E2EL.Seconds(), maxITL}, rand.IntN)
	j.mu.Unlock()

	if srv == nil {
		return
	}
	// Read once a minute, but until a reading comes on every probe: the
	// target's first scrape may come after its first probes.
	minute := now.Unix() / 60
	srv.mu.Lock()
	due := srv.read != minute
	srv.mu.Unlock()
	if !due {
		return
	}
	if reading, ok := t.server(r.Target); ok {
		srv.mu.Lock()
		if srv.w == nil {
			srv.w = newServerWindow()
		}
		srv.w.add(reading)
		srv.read = minute
		srv.mu.Unlock()
	}
}

// sweep drops the windows of jobs and targets not probed for an hour:
// they left the config. t.mu is held.
func (t *Tracker) sweep(now time.Time) {
	t.lastSweep = now
	live := map[string]bool{}
	for k, j := range t.jobs {
		j.mu.Lock()
		idle := now.Sub(j.w.last) > Minutes*time.Minute
		j.mu.Unlock()
		if idle {
			delete(t.jobs, k)
		} else {
			live[k.target] = true
		}
	}
	for name := range t.servers {
		if !live[name] {
			delete(t.servers, name)
		}
	}
}

// Job returns the last hour of a (target, module); ok is false if it has
// not been probed in that time.
func (t *Tracker) Job(target, module string) (Summary, bool) {
	t.mu.Lock()
	j := t.jobs[jobKey{target, module}]
	t.mu.Unlock()
	if j == nil {
		return Summary{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.w.summary(t.now()), true
}

// Server returns the last hour of a target's server signals; ok is false
// if none were read in that time.
func (t *Tracker) Server(target string) (ServerSummary, bool) {
	t.mu.Lock()
	s := t.servers[target]
	t.mu.Unlock()
	if s == nil {
		return ServerSummary{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return ServerSummary{}, false
	}
	sum := s.w.summary(t.now())
	return sum, !sum.Latest.At.IsZero()
}
