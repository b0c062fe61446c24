package prober

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/llm-prober/llm-prober/config"
)

// Skip reasons for llm_prober_probes_skipped_total.
const (
	SkipOverlap     = "overlap"
	SkipConcurrency = "concurrency_limit"
)

// Observer is told about every finished probe (history, debug pages).
type Observer func(*Result)

// Scheduler runs every (target, module) pair on its own goroutine, at its
// own interval, from a random phase so that targets do not probe in step.
// A job runs its probes one after another, so it never overlaps itself.
type Scheduler struct {
	logger    log.Logger
	metrics   *Metrics
	userAgent string
	observe   Observer
	// waiting, if set, tells how many requests the target's server
	// reports queued, to explain a timeout before the first token.
	waiting func(target string) (float64, bool)
	// restarts, if set, reports restarts seen in the targets' own
	// metrics, to open a warm-up (warmup.go).
	restarts RestartSource

	// applyMu serialises Apply, which alone writes jobs and clients and
	// may wait for stopping probes; mu guards only the swap of jobs, so
	// that readers (readiness, the status page) never wait on a probe.
	applyMu sync.Mutex
	mu      sync.Mutex
	jobs    map[jobKey]*job
	clients map[string]*targetClient
	// slots caps probes in flight globally.
	slots   atomic.Pointer[chan struct{}]
	running atomic.Bool
	ctx     context.Context
	cancel  context.CancelFunc
}

type jobKey struct{ target, module string }

type targetClient struct {
	target    *config.Target
	keepAlive time.Duration
	client    *http.Client
	err       error // the client could not be built (e.g. unreadable ca_file)
}

type job struct {
	target *config.Target
	module *config.Module
	client *targetClient
	cancel context.CancelFunc
	done   chan struct{}
	// profile keeps a prompt_tokens module's prompt sizing between probes.
	profile *PromptProfile
	// warmup is the job's warm-up state after a target restart
	// (warmup.go); only the job's goroutine touches it.
	warmup *warmup
	// failingSince: the start of the current run of failures, zero while
	// passing (transition.go); only the job's goroutine touches it.
	failingSince time.Time

	mu   sync.Mutex
	last *Result
}

// NewScheduler returns a scheduler; Apply starts it.
func NewScheduler(logger log.Logger, metrics *Metrics, userAgent string, observe Observer) *Scheduler {
	ctx, cancel := context.WithCancel(context.Background())
	return &Scheduler{
		logger: logger, metrics: metrics, userAgent: userAgent, observe: observe,
		jobs: map[jobKey]*job{}, clients: map[string]*targetClient{},
		ctx: ctx, cancel: cancel,
	}
}

// ExplainQueueing makes a timeout before the first token say so when the
// target's server reports waiting requests (from its scraped metrics):
// the probe was queued behind real traffic, the server is saturated, not
// unreachable. Call before the first Apply.
func (s *Scheduler) ExplainQueueing(waiting func(target string) (float64, bool)) {
	s.waiting = waiting
}

// explain adds what the server reported to a probe's error.
func (s *Scheduler) explain(r *Result) {
	if r.Reason != ReasonTimeoutFirstToken || s.waiting == nil {
		return
	}
	if n, ok := s.waiting(r.Target); ok && n > 0 {
		r.Err = fmt.Errorf("%w; the server reports %g requests waiting: queued behind them (saturated, not unreachable)", r.Err, n)
	}
}

// Apply makes the running jobs match cfg. Jobs whose target and module
// are unchanged keep running on their schedule with their counters; new or
// changed ones start at a random phase; removed ones stop and their series
// are deleted.
func (s *Scheduler) Apply(cfg *config.Config) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	if p := s.slots.Load(); p == nil || cap(*p) != cfg.Global.MaxConcurrentProbes {
		// In-flight probes keep their slot on the old channel; the new cap
		// applies from the next probe on.
		ch := make(chan struct{}, max(cfg.Global.MaxConcurrentProbes, 1))
		s.slots.Store(&ch)
	}
	clients := s.buildClients(cfg)
	want := map[jobKey]*job{}
	for _, t := range cfg.Targets {
		for _, name := range t.Modules {
			m := cfg.Modules[name]
			if m == nil {
				continue // rejected by config validation
			}
			k := jobKey{t.Name, name}
			// A rebuilt client (e.g. a CA file that failed to load
			// before) restarts the job; a reused one keeps it.
			if old, ok := s.jobs[k]; ok && old.target.Equal(t) && old.module.Equal(m) && old.client == clients[t.Name] {
				want[k] = old
				continue
			}
			want[k] = &job{target: t, module: m, client: clients[t.Name], profile: NewPromptProfile()}
		}
	}
	// Cancel every removed or changed job at once, then wait: their
	// series may go only when no probe of theirs can record again.
	var stopped []*job
	for k, j := range s.jobs {
		if want[k] != j {
			j.cancel()
			stopped = append(stopped, j)
		}
	}
	for _, j := range stopped {
		<-j.done
		if nj, ok := want[jobKey{j.target.Name, j.module.Name}]; !ok || nj.target.Model != j.target.Model {
			s.metrics.Delete(j.target.Name, j.target.Model, j.module.Name)
		}
	}
	for k, j := range want {
		if s.jobs[k] == j {
			continue
		}
		s.metrics.InitSchedule(j.target, j.module)
		s.start(j)
	}
	s.mu.Lock()
	s.jobs = want
	s.mu.Unlock()
	s.clients = clients
	s.running.Store(true)
}

func (s *Scheduler) start(j *job) {
	ctx, cancel := context.WithCancel(s.ctx)
	j.cancel, j.done = cancel, make(chan struct{})
	go s.loop(ctx, j)
}

func (s *Scheduler) loop(ctx context.Context, j *job) {
	defer close(j.done)
	interval := time.Duration(j.target.Interval)
	// A random phase spreads targets over the interval, at start and after
	// a reload, instead of firing them all at once.
	next := time.Now().Add(rand.N(interval))
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		ran := s.runOnce(ctx, j, next.Add(interval))
		next = next.Add(interval)
		// Keep the grid: skip slots that a probe overran rather than
		// bunching probes up. A probe skipped for want of a slot waited
		// exactly until the next slot, which is due now and runs.
		for ran && !next.After(time.Now()) {
			s.metrics.Skip(j.target.Name, j.target.Model, j.module.Name, SkipOverlap)
			next = next.Add(interval)
		}
		timer.Reset(time.Until(next))
	}
}

// runOnce waits for a global slot until the next scheduled run at most,
// then probes under the target's timeout. It reports whether it probed.
func (s *Scheduler) runOnce(ctx context.Context, j *job, deadline time.Time) bool {
	slots := *s.slots.Load() // released to the channel it was taken from
	wait, cancelWait := context.WithDeadline(ctx, deadline)
	select {
	case slots <- struct{}{}:
		cancelWait()
	case <-wait.Done():
		cancelWait()
		if ctx.Err() == nil {
			s.metrics.Skip(j.target.Name, j.target.Model, j.module.Name, SkipConcurrency)
		}
		return false
	}
	defer func() { <-slots }()
	s.metrics.inFlight.Inc()
	defer s.metrics.inFlight.Dec()
	// How late the probe starts against its slot on the grid: timer
	// lateness, the wait for a slot, or a prober short of CPU.
	s.metrics.scheduleDelay.Observe(time.Since(deadline.Add(-time.Duration(j.target.Interval))).Seconds())

	var r *Result
	if j.client.err != nil {
		r = &Result{ID: NewProbeID(), Target: j.target.Name, Model: j.target.Model, Module: j.module.Name,
			Start: time.Now(), Reason: ReasonOther, Err: j.client.err}
	} else {
		pctx, cancel := context.WithTimeout(ctx, time.Duration(j.target.Timeout))
		r = RunWithOptions(pctx, j.client.client, j.target, j.module, NewProbeID(), s.userAgent, RunOptions{Profile: j.profile, CloseConnection: j.closesConnection()})
		cancel()
	}
	if ctx.Err() != nil {
		return true // shut down or reloaded mid-probe: not a target failure
	}
	end := time.Now()
	s.explain(r)
	s.warmUp(j, r)
	s.metrics.Record(r, end)
	j.mu.Lock()
	j.last = r.summary()
	j.mu.Unlock()
	if s.observe != nil {
		s.observe(r)
	}
	logTransition(s.logger, &j.failingSince, r)
	if !r.Success() {
		level.Debug(s.logger).Log("msg", "probe failed", "target", r.Target, "module", r.Module,
			"probe_id", r.ID, "reason", r.Reason, "err", r.Err)
	}
	return true
}

// Stop cancels every job and in-flight probe, waiting at most timeout.
func (s *Scheduler) Stop(timeout time.Duration) bool {
	s.cancel()
	s.mu.Lock()
	jobs := s.jobs
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		for _, j := range jobs {
			<-j.done
		}
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// Running reports whether a config has been applied (for /-/ready).
func (s *Scheduler) Running() bool {
	return s.running.Load() && s.ctx.Err() == nil
}

// Status is the state of one job, for the landing page.
type Status struct {
	Target, Module, Model, URL string
	Interval                   time.Duration
	Last                       *Result
}

// Statuses lists every job, sorted by target then module.
func (s *Scheduler) Statuses() []Status {
	s.mu.Lock()
	out := make([]Status, 0, len(s.jobs))
	for k, j := range s.jobs {
		j.mu.Lock()
		out = append(out, Status{Target: k.target, Module: k.module, Model: j.target.Model,
			URL: j.target.RedactedURL(), Interval: time.Duration(j.target.Interval), Last: j.last})
		j.mu.Unlock()
	}
	s.mu.Unlock()
	sort.Slice(out, func(a, b int) bool {
		if out[a].Target != out[b].Target {
			return out[a].Target < out[b].Target
		}
		return out[a].Module < out[b].Module
	})
	return out
}

// NewProbeID returns a random 16-hex-digit id.
func NewProbeID() string {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}
