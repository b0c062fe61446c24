package mockvllm

import (
	"slices"
	"sync"
	"time"
)

type reqState int

const (
	stWaiting reqState = iota
	stRunning
	stDone
)

// request is one generation inside the engine. Fields below the mutex
// line are guarded by engine.mu.
type request struct {
	prompt, cached int
	prefill        time.Duration // prefill time of the uncached prompt tokens, on top of TTFT
	target         int           // tokens to generate
	arrival        time.Time
	wake           chan struct{} // "state may have changed", cap 1
	stall          time.Duration // injected decode stall (DecodeStall), 0: none
	stallAfter     int           // output tokens before the stall
	stalled        bool          // the stall happened (owned by the run goroutine)

	// guarded by engine.mu
	state          reqState
	seq            uint64 // admission order; the highest is preempted first
	blocks         int
	generated      int
	pendingN       int // tokens the reserved step will emit
	pendingAccept  int // accepted drafts in that step, -1 if no draft
	admittedAt     time.Time
	firstScheduled time.Time
	firstToken     time.Time
	lastToken      time.Time
	preemptions    int
}

// engine is the scheduler state shared by all request goroutines: running
// slots, FIFO waiting queue and KV-block accounting.
type engine struct {
	o      *Options
	m      *metrics
	rng    *lockedRand
	closed <-chan struct{} // Server.Close: abort everything

	mu          sync.Mutex
	waiting     []*request
	running     []*request // in admission order
	usedBlocks  int
	seq         uint64
	preemptions int
}

// Stats is a snapshot of the engine, for tests and the gauges.
type Stats struct {
	Running, Waiting     int
	UsedBlocks, KVBlocks int
	Preemptions          int
}

// KVUsage is the fraction of KV blocks in use (0 when unlimited).
func (s Stats) KVUsage() float64 {
	if s.KVBlocks <= 0 {
		return 0
	}
	return float64(s.UsedBlocks) / float64(s.KVBlocks)
}

// Stats returns the current engine state.
func (e *engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return Stats{Running: len(e.running), Waiting: len(e.waiting),
		UsedBlocks: e.usedBlocks, KVBlocks: max(e.o.KVBlocks, 0), Preemptions: e.preemptions}
}

func (e *engine) blocksFor(tokens int) int {
	return (tokens + e.o.BlockSize - 1) / e.o.BlockSize
}

func (e *engine) kvLimited() bool { return e.o.KVBlocks > 0 }

func notify(r *request) {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// enqueue adds a new request at the back of the waiting queue.
func (e *engine) enqueue(r *request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r.state = stWaiting
	e.waiting = append(e.waiting, r)
	e.scheduleLocked()
}

// scheduleLocked admits waiting requests in strict FIFO order while a slot
// and enough KV blocks for the prompt, the tokens generated so far
// (recomputed after preemption) and the next token are free.
func (e *engine) scheduleLocked() {
	for len(e.waiting) > 0 && (e.o.MaxRunning <= 0 || len(e.running) < e.o.MaxRunning) {
		r := e.waiting[0]
		n := min(1, r.target-r.generated)
		need := e.blocksFor(r.prompt + r.generated + n)
		if e.kvLimited() && need > e.o.KVBlocks-e.usedBlocks {
			return
		}
		e.waiting = e.waiting[1:]
		now := time.Now()
		e.seq++
		r.state, r.seq, r.blocks = stRunning, e.seq, need
		r.pendingN, r.pendingAccept = n, -1
		r.admittedAt = now
		e.usedBlocks += need
		e.running = append(e.running, r)
		if r.firstScheduled.IsZero() {
			r.firstScheduled = now
			e.m.prefixQueries.Add(float64(r.prompt))
			e.m.prefixHits.Add(float64(r.cached))
		}
		notify(r)
	}
}

// preemptLocked sends a running request back to the front of the queue
// and frees its blocks; it will pay prefill again (recompute).
func (e *engine) preemptLocked(v *request) {
	e.running = slices.DeleteFunc(e.running, func(x *request) bool { return x == v })
	e.usedBlocks -= v.blocks
	v.blocks = 0
	v.state = stWaiting
	v.preemptions++
	e.preemptions++
	e.m.preemptions.Inc()
	e.waiting = slices.Insert(e.waiting, 0, v)
	notify(v)
}

// grow reserves blocks for r's next decode step, preempting the newest
// running requests while blocks are short. It returns false if r itself
// was preempted (or already was).
func (e *engine) grow(r *request) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.state != stRunning {
		return false
	}
	n, accepted := e.stepSize(r)
	need := e.blocksFor(r.prompt+r.generated+n) - r.blocks
	for e.kvLimited() && need > e.o.KVBlocks-e.usedBlocks {
		v := e.running[len(e.running)-1]
		e.preemptLocked(v)
		if v == r {
			e.scheduleLocked()
			return false
		}
	}
	e.usedBlocks += need
	r.blocks += need
	r.pendingN, r.pendingAccept = n, accepted
	return true
}

// stepSize draws the tokens of one decode step: TokensPerChunk, or with
// speculative decoding 1 + the leading accepted drafts.
func (e *engine) stepSize(r *request) (n, accepted int) {
	left := r.target - r.generated
	sd := e.o.SpecDecode
	if sd == nil {
		return min(e.o.TokensPerChunk, left), -1
	}
	for accepted < sd.NumSpeculativeTokens && e.rng.float64() < sd.AcceptanceRate {
		accepted++
	}
	accepted = max(min(accepted, left-1), 0)
	return min(1+accepted, left), accepted
}

// commit records the reserved step as emitted at now. ok is false if r
// was preempted before the step completed.
func (e *engine) commit(r *request, now time.Time) (n, total int, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.state != stRunning {
		return 0, r.generated, false
	}
	n = r.pendingN
	r.generated += n
	e.m.genTokens.Add(float64(n))
	if r.firstToken.IsZero() {
		r.firstToken = now
		e.m.ttft.Observe(now.Sub(r.arrival).Seconds())
		e.m.promptTokens.Add(float64(r.prompt))
	} else {
		e.m.itl.Observe(now.Sub(r.lastToken).Seconds())
	}
	r.lastToken = now
	if a := r.pendingAccept; a >= 0 && e.m.specDrafts != nil {
		e.m.specDrafts.Inc()
		e.m.specDraftTokens.Add(float64(e.o.SpecDecode.NumSpeculativeTokens))
		e.m.specAccepted.Add(float64(a))
		for i := range a {
			e.m.specPerPos[i].Inc()
		}
	}
	r.pendingN, r.pendingAccept = 0, -1
	return n, r.generated, true
}

// finish removes r from the engine, frees its blocks, counts it under
// reason and admits waiting requests. Latency histograms are observed for
// completed (stop/length) requests only.
func (e *engine) finish(r *request, reason string) {
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	switch r.state {
	case stDone:
		return
	case stRunning:
		e.running = slices.DeleteFunc(e.running, func(x *request) bool { return x == r })
		e.usedBlocks -= r.blocks
		r.blocks = 0
	case stWaiting:
		e.waiting = slices.DeleteFunc(e.waiting, func(x *request) bool { return x == r })
	}
	r.state = stDone
	e.m.success.WithLabelValues(reason).Inc()
	if (reason == "stop" || reason == "length") && !r.firstToken.IsZero() {
		e.m.e2e.Observe(now.Sub(r.arrival).Seconds())
		e.m.queue.Observe(r.firstScheduled.Sub(r.arrival).Seconds())
		e.m.prefill.Observe(r.firstToken.Sub(r.firstScheduled).Seconds())
		decode := r.lastToken.Sub(r.firstToken).Seconds()
		e.m.decode.Observe(decode)
		e.m.infer.Observe(r.lastToken.Sub(r.firstScheduled).Seconds())
		if r.generated > 1 {
			e.m.tpot.Observe(decode / float64(r.generated-1))
		} else {
			e.m.tpot.Observe(0)
		}
		e.m.promptHist.Observe(float64(r.prompt))
		e.m.genHist.Observe(float64(r.generated))
	}
	e.scheduleLocked()
}

// snapshot copies the engine-side timings of r into t.
func (e *engine) snapshot(r *request, t *Trace) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t.Scheduled, t.FirstToken = r.firstScheduled, r.firstToken
	t.CompletionTokens, t.Preemptions = r.generated, r.preemptions
}
