package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/workload"
	"github.com/llm-prober/llm-prober/prober"
)

// Run is the raw outcome of one load test.
type Run struct {
	Opts    Options
	Started time.Time // the schedule's origin
	Ended   time.Time
	Records []Record   // in completion order, warm-up included
	ITL     stats.Hist // measured requests' inter-token gaps
	// TokensPerMs counts measured output tokens by the millisecond (since
	// Started) in which the kernel received them: Summarize buckets them
	// by the second from the first measured start, as vllm bench does.
	TokensPerMs []uint16
	// TokenTimes are the same tokens' arrival times (ns since Started),
	// so that vllm bench's per-second peak is bucketed exactly from its
	// origin, a request's start; nil once a run passes MaxTokenTimes
	// (TokenTimesDropped), which then falls back to TokensPerMs.
	TokenTimes        []int64
	TokenTimesDropped bool
	tokenTimes        blocks // TokenTimes until FinishTokens
	// Errors keeps the first error message of each failure reason.
	Errors map[prober.Reason]string
	// Interrupted is set when ctx ended the run early.
	Interrupted bool
	// StartLag is how late the engine woke for Options.StartAt (0
	// without it): its requests' send lag is counted from StartAt anyway.
	StartLag time.Duration
}

// MaxTokenTimes bounds Run.TokenTimes at 32 MiB: 32,000 requests of 128
// output tokens.
const MaxTokenTimes = 4 << 20

type runner struct {
	o       Options
	ctx     context.Context
	client  *http.Client // o.Client under the idle watch
	started time.Time
	stop    atomic.Bool
	waker   *waker // the last stretch to a planned send
	// endCtx parents every request: cancelled when --duration ends
	// (armed once the measured part's start is known), so stragglers are
	// cut off and counted as cancelled.
	endCtx  context.Context
	endRun  context.CancelFunc
	armEnd  sync.Once
	endTime *time.Timer

	mu  sync.Mutex
	run *Run

	done, failed, inflight atomic.Int64
	measured               atomic.Int64 // measured requests issued
	warmupEnd              atomic.Int64 // planned ns of the first measured request, -1 until known
}

// Execute runs the load test described by o. Cancelling ctx stops sending
// and aborts the requests in flight; the run so far is returned.
func Execute(ctx context.Context, o Options) (*Run, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.IDPrefix == "" {
		o.IDPrefix = "bench"
	}
	r := &runner{o: o, ctx: ctx, client: withIdleTransport(o.Client), run: &Run{Opts: o, Errors: map[prober.Reason]string{}}}
	if n := r.total(); n > 0 {
		r.run.Records = make([]Record, 0, n) // no doubling copies at a million
	}
	r.endCtx, r.endRun = context.WithCancel(ctx)
	defer func() {
		r.endRun()
		if r.endTime != nil {
			r.endTime.Stop()
		}
	}()
	r.warmupEnd.Store(-1)
	if o.WarmupDuration > 0 {
		r.warmupEnd.Store(int64(o.WarmupDuration))
	}
	progressDone := make(chan struct{})
	r.started = time.Now()
	if !o.StartAt.IsZero() {
		if !waitUntil(ctx, o.StartAt) {
			return nil, fmt.Errorf("interrupted while waiting for the start at %s", o.StartAt.UTC().Format(time.RFC3339Nano))
		}
		r.started, r.run.StartLag = o.StartAt, max(time.Since(o.StartAt), 0)
	}
	r.run.Started = r.started
	var stopProgress func()
	if o.Progress != nil {
		stopProgress = r.reportProgress(progressDone)
	}
	switch {
	case o.ClosedLoop():
		r.closedLoop()
	case o.Sessions() != nil:
		r.sessionLoop()
	default:
		r.openLoop()
	}
	r.run.Ended = time.Now()
	r.run.Interrupted = ctx.Err() != nil
	r.mu.Lock()
	r.run.FinishTokens()
	r.mu.Unlock()
	if stopProgress != nil {
		stopProgress()
	}
	return r.run, nil
}

// total is the number of requests the run (this shard) sends, 0 if it
// runs for a time.
func (r *runner) total() int {
	if r.o.NumPrompts <= 0 {
		return 0
	}
	if c, ok := r.o.Workload.(interface{ Requests(sessions int) int }); ok {
		n := c.Requests(r.o.NumPrompts + r.o.WarmupRequests) // turns of multi-turn sessions
		return r.o.Shard.Share(n)                            // about: sessions differ in length
	}
	return r.o.Shard.Share(r.o.NumPrompts + r.o.WarmupRequests)
}

// waitUntil sleeps until t; false if ctx ended first.
func waitUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// admit classifies request i planned at t (since start) and says whether
// it is still part of the run.
func (r *runner) admit(i int, t time.Duration) (warmup, ok bool) {
	if r.ctx.Err() != nil || r.stop.Load() {
		return false, false
	}
	o := &r.o
	switch {
	case i < o.WarmupRequests:
		return true, true
	case o.WarmupDuration > 0 && t < o.WarmupDuration:
		return true, true
	}
	if r.warmupEnd.Load() < 0 {
		r.warmupEnd.CompareAndSwap(-1, int64(t))
	}
	if o.Duration > 0 {
		r.armEnd.Do(func() { r.endTime = time.AfterFunc(time.Until(r.started.Add(r.end())), r.endRun) })
	}
	if o.NumPrompts > 0 && r.measured.Load() >= int64(r.measuredCap()) {
		return false, false
	}
	if o.Duration > 0 && t >= time.Duration(r.warmupEnd.Load())+o.Duration {
		return false, false
	}
	r.measured.Add(1)
	return false, true
}

// measuredCap is how many measured requests admit lets through: all of
// them in an open loop, where a shard walks the whole schedule and skips
// the others' part; a sharded closed loop's share, as it walks only its own.
func (r *runner) measuredCap() int {
	if r.o.ClosedLoop() {
		return r.o.Shard.Share(r.o.NumPrompts)
	}
	return r.o.NumPrompts
}

// sendLead is how far ahead of its planned time a request's goroutine is
// started, so that only a precise wake-up (waker) separates the plan from
// the send: more than Go's timer oversleeps when idle (up to 1 ms).
const sendLead = 3 * time.Millisecond

func (r *runner) openLoop() {
	var wg sync.WaitGroup
	var sem chan struct{}
	if r.o.MaxConcurrency > 0 {
		sem = make(chan struct{}, r.o.MaxConcurrency)
	}
	arr := r.o.Plan()
	r.waker = newWaker()
	defer r.waker.close()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// At an infinite rate every planned time is 0: a warm-up would be
	// sent all at once (or, by duration, without end). It goes first,
	// bounded, and the schedule starts when it has ended.
	first, origin := 0, time.Duration(0)
	if math.IsInf(r.o.Rate, 1) && !r.o.Shaped() && (r.o.WarmupRequests > 0 || r.o.WarmupDuration > 0) {
		first = r.warmupAtOnce(r.o.WarmupConcurrency())
		origin = time.Since(r.started)
		if r.o.WarmupDuration > 0 {
			r.warmupEnd.Store(int64(origin)) // --duration counts from here, not from the warm-up's nominal end
		}
	}
	for i := first; ; i++ {
		planned := origin + arr.Next()
		warmup, ok := r.admit(i, planned)
		if !ok {
			break
		}
		if !r.o.Shard.Owns(i) {
			continue // another shard's: drawn all the same, so the schedule stays one
		}
		if !r.sleepUntil(timer, planned-sendLead) {
			break // interrupted before this request was due: not part of the run
		}
		waited := false
		if sem != nil {
			select {
			case sem <- struct{}{}:
			default:
				waited = true // queued in the client: the schedule-based latency counts it
				select {
				case sem <- struct{}{}:
				case <-r.ctx.Done():
				}
			}
			if r.ctx.Err() != nil {
				r.cancelled(i, planned, warmup) // due, but queued in the client when interrupted
				break
			}
		}
		wg.Add(1)
		r.inflight.Add(1)
		go func() {
			defer wg.Done()
			r.do(i, planned, warmup, true, waited)
			if sem != nil {
				<-sem
			}
		}()
	}
	wg.Wait()
}

// warmupAtOnce sends an infinite rate's warm-up with at most users in
// flight: WarmupRequests of them, or for WarmupDuration. It returns the
// index of the first measured request.
func (r *runner) warmupAtOnce(users int) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	admit := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		o := &r.o
		if r.ctx.Err() != nil || (o.WarmupRequests > 0 && next >= o.WarmupRequests) ||
			(o.WarmupDuration > 0 && time.Since(r.started) >= o.WarmupDuration) {
			return 0, false
		}
		next++
		return next - 1, true
	}
	for range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := admit()
				if !ok {
					return
				}
				if !r.o.Shard.Owns(i) {
					continue
				}
				r.inflight.Add(1)
				r.do(i, time.Since(r.started), true, false, false)
			}
		}()
	}
	wg.Wait()
	return next
}

// sleepUntil waits until planned (since start) on Go's timer, which can
// be cancelled; false if ctx ended. It may wake up to ~1 ms late, which
// sendLead covers: only the request's own goroutine needs the waker.
func (r *runner) sleepUntil(timer *time.Timer, planned time.Duration) bool {
	d := time.Until(r.started.Add(planned))
	if d <= 0 {
		return r.ctx.Err() == nil
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// closedLoop runs the users; a shard runs its share of them (by user
// id), numbering its requests apart from the other shards' (Global), and
// stops at its share of --num-prompts.
func (r *runner) closedLoop() {
	var wg sync.WaitGroup
	var next atomic.Int64
	var admitMu sync.Mutex // admission order must follow index order
	sh := r.o.Shard
	for range sh.Share(r.o.Concurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				admitMu.Lock()
				i := sh.Global(int(next.Add(1) - 1))
				planned := time.Since(r.started)
				warmup, ok := r.admit(i, planned)
				admitMu.Unlock()
				if !ok {
					return
				}
				r.inflight.Add(1)
				r.do(i, planned, warmup, false, false)
			}
		}()
	}
	wg.Wait()
}

// do sends request i (at its planned time, if wait) and records it;
// slotWaited says it queued for a --max-concurrency slot.
func (r *runner) do(i int, planned time.Duration, warmup, wait, slotWaited bool) {
	it := r.o.Workload.Item(i)
	r.send(i, planned, it, r.module(it), 0, warmup, wait, slotWaited)
}

// send sends request i, the module m built for item it (turn > 0: that
// turn of a session), and records it.
func (r *runner) send(i int, planned time.Duration, it workload.Item, m *config.Module, turn int, warmup, wait, slotWaited bool) *prober.Result {
	defer r.inflight.Add(-1)
	if wait {
		r.waker.sleep(time.Until(r.started.Add(planned)))
	}
	// An interrupt or the run's end (endCtx) cuts the request off; the
	// idle watch and --timeout bound it on their own.
	ctx, idle, stopIdle := watchIdle(r.endCtx, r.o.IdleTimeout)
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	res := prober.Run(ctx, r.client, r.o.Target, m, r.o.IDPrefix+"-"+strconv.Itoa(i), r.o.UserAgent)
	cancel()
	stopIdle()
	cutOff := r.endCtx.Err() != nil
	end := time.Since(r.started)
	if !res.Success() {
		switch {
		case cutOff:
			// An interrupt or the run's end, not the server: counted apart.
			res.Reason, res.Err = ReasonCancelled, fmt.Errorf("cancelled by the run's end or an interrupt: %w", res.Err)
		case idle.fired.Load():
			res.Reason = prober.ReasonTimeoutHeaders
			if res.HasTTFT {
				res.Reason = prober.ReasonTimeoutDecode
			} else if res.HTTPStatus != 0 {
				res.Reason = prober.ReasonTimeoutFirstToken
			}
			res.Err = fmt.Errorf("no data for %v (--idle-timeout): %w", r.o.IdleTimeout, res.Err)
		}
	}
	start := end
	if !res.Start.IsZero() {
		start = res.Start.Sub(r.started)
	}
	rec := Record{Index: int64(i), Planned: int64(planned), Start: int64(start), End: int64(end),
		TTFT: int64(res.TTFT), TPOT: int64(res.TPOT), E2EL: int64(res.E2EL),
		PlannedPrompt: int32(it.PromptTokens), PromptTokens: int32(res.PromptTokens),
		CachedTokens: int32(res.CachedTokens), PlannedOutput: int32(it.OutputTokens),
		OutputTokens: int32(res.OutputTokens), ITLCount: int32(len(res.ITL)),
		Reason: res.Reason, Warmup: warmup, SlotWaited: slotWaited, Turn: int16(min(turn, math.MaxInt16))}
	rec.MaxGapUs = GapUs(worstGap(res, time.Duration(rec.End-rec.Start)))
	if !res.Success() {
		rec.TPOT, rec.E2EL = 0, 0
		if !rec.Cancelled() || !res.HasTTFT {
			rec.TTFT = 0 // a cut-off request keeps its TTFT: it may have missed the SLO already
		}
		if !rec.Cancelled() {
			r.failed.Add(1)
		}
	}
	r.record(rec, res, warmup)
	return res
}

// worstGap is res's longest gap between content chunks; when res ended
// without success after its first token, the gap from its last chunk to
// age (when the client gave up, since the send) counts too: a stream that
// stalled until a timeout stalled at least that long.
func worstGap(res *prober.Result, age time.Duration) time.Duration {
	var worst, last time.Duration
	last = res.TTFT
	for _, g := range res.ITL {
		worst = max(worst, g)
		last += g
	}
	if !res.Success() && res.HasTTFT && age > last {
		worst = max(worst, age-last)
	}
	return worst
}

// cancelled records request i, due but never sent: an interrupt came
// while it waited for a --max-concurrency slot.
func (r *runner) cancelled(i int, planned time.Duration, warmup bool) {
	now := int64(time.Since(r.started))
	it := r.o.Workload.Item(i)
	rec := Record{Index: int64(i), Planned: int64(planned), Start: now, End: now, PlannedPrompt: int32(it.PromptTokens),
		PlannedOutput: int32(it.OutputTokens), Reason: ReasonCancelled, Warmup: warmup}
	r.record(rec, &prober.Result{Reason: ReasonCancelled, Err: errors.New("cancelled before it was sent")}, warmup)
}

// end is when the measured part of the run ends (since start), 0 if it
// is not bounded by a duration or not known yet.
func (r *runner) end() time.Duration {
	w := r.warmupEnd.Load()
	if r.o.Duration <= 0 || w < 0 {
		return 0
	}
	return time.Duration(w) + r.o.Duration
}

func (r *runner) record(rec Record, res *prober.Result, warmup bool) {
	r.mu.Lock()
	r.run.Records = append(r.run.Records, rec)
	if !rec.Success() {
		if _, seen := r.run.Errors[rec.Reason]; !seen && res.Err != nil {
			r.run.Errors[rec.Reason] = res.Err.Error()
		}
	} else if !warmup {
		r.run.AddTokens(&rec, res.ITL)
	}
	if r.o.OnResult != nil {
		r.o.OnResult(&rec, res)
	}
	r.mu.Unlock()
	r.done.Add(1)
}

// module is the request for one item, built as a one-off probe module.
func (r *runner) module(it workload.Item) *config.Module {
	m := &config.Module{API: r.o.API, Name: "bench", MaxTokens: it.OutputTokens,
		Temperature: r.o.Temperature, ExtraBody: r.o.ExtraBody}
	if r.o.API == config.APICompletions {
		m.Prompt = it.Prompt
	} else {
		m.Messages = []config.Message{{Role: "user", Content: it.Prompt}}
	}
	if r.o.IgnoreEOS {
		m.IgnoreEOS, m.MinTokens = true, it.OutputTokens
	}
	if r.o.NoContinuousUsage {
		f := false
		m.StreamOptions.ContinuousUsageStats = &f
	}
	return m
}

func (r *runner) reportProgress(done chan struct{}) func() {
	tick := time.NewTicker(250 * time.Millisecond)
	finished := make(chan struct{})
	snap := func(final bool) Progress {
		p := Progress{Elapsed: time.Since(r.started), Done: int(r.done.Load()), Total: r.total(),
			Failed: int(r.failed.Load()), InFlight: int(r.inflight.Load()), Final: final, ClosedLoop: r.o.ClosedLoop()}
		if r.o.Duration > 0 {
			end := r.o.Duration
			if w := r.warmupEnd.Load(); w >= 0 {
				end += time.Duration(w)
			}
			p.Remaining = max(end-p.Elapsed, 0)
		}
		return p
	}
	go func() {
		defer close(finished)
		for {
			select {
			case <-tick.C:
				r.o.Progress(snap(false))
			case <-done:
				return
			}
		}
	}()
	return func() {
		tick.Stop()
		close(done)
		<-finished
		r.o.Progress(snap(true))
	}
}
