package mockvllm

import (
	"context"
	"time"
)

// stepFunc is called once per engine step, right after it is due, with
// the tokens it produced and the finish reason if it was the last step.
// It returns "" to go on, or a finish reason ("abort", "error") to end the
// request early.
type stepFunc func(tokens int, at time.Time, final string) string

// run drives r through the engine: queue, prefill, then decode steps on an
// absolute schedule (admitted + TTFT + sum of ITL draws) so timer lateness
// does not accumulate. A preempted request re-queues at the front and pays
// prefill again before continuing. It returns the finish reason; the
// request has left the engine (slot and blocks freed) when it returns.
func (e *engine) run(ctx context.Context, r *request, reason string, step stepFunc) string {
	r.wake = make(chan struct{}, 1)
	e.enqueue(r)
	end := func(why string) string {
		e.finish(r, why)
		return why
	}
	for {
		admitted, ok := e.waitRunning(ctx, r)
		if !ok {
			return end("abort")
		}
		due := admitted.Add(e.o.TTFT.sample(e.rng) + r.prefill)
		for {
			preempted, ok := e.sleepUntil(ctx, r, due)
			if !ok {
				return end("abort")
			}
			if preempted {
				break
			}
			now := time.Now()
			n, total, ok := e.commit(r, now)
			if !ok {
				break // preempted just before the step completed
			}
			final := ""
			if total >= r.target {
				final = reason
			}
			if why := step(n, now, final); why != "" {
				return end(why)
			}
			if final != "" {
				return end(final)
			}
			if !e.grow(r) {
				break
			}
			due = r.stallDue(due.Add(e.o.ITL.sample(e.rng)+e.batchDelay()), total)
		}
	}
}

// waitRunning blocks until r is admitted and returns the admission time;
// ok is false if the client went away or the server closed.
func (e *engine) waitRunning(ctx context.Context, r *request) (time.Time, bool) {
	for {
		e.mu.Lock()
		st, at := r.state, r.admittedAt
		e.mu.Unlock()
		if st == stRunning {
			return at, true
		}
		select {
		case <-r.wake:
		case <-ctx.Done():
			return time.Time{}, false
		case <-e.closed:
			return time.Time{}, false
		}
	}
}

// sleepUntil waits for the absolute time due. It returns early with
// preempted=true if r lost its slot, and ok=false on abort.
func (e *engine) sleepUntil(ctx context.Context, r *request, due time.Time) (preempted, ok bool) {
	t := time.NewTimer(time.Until(due))
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return false, true
		case <-r.wake:
			e.mu.Lock()
			st := r.state
			e.mu.Unlock()
			if st != stRunning {
				return true, true
			}
		case <-ctx.Done():
			return false, false
		case <-e.closed:
			return false, false
		}
	}
}

// batchDelay is the extra step time caused by the running batch:
// PerSequence per running request when set (the saturating model), else
// BatchSlowdown per other running request.
func (e *engine) batchDelay() time.Duration {
	if e.o.BatchSlowdown <= 0 && e.o.PerSequence <= 0 {
		return 0
	}
	e.mu.Lock()
	n := len(e.running)
	e.mu.Unlock()
	if e.o.PerSequence > 0 {
		return time.Duration(n) * e.o.PerSequence
	}
	return time.Duration(max(n-1, 0)) * e.o.BatchSlowdown
}
