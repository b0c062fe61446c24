package loadtest

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// sessions is o's workload as Sessions, nil if it is one request an item.
func (o *Options) sessions() Sessions {
	s, _ := o.Workload.(Sessions)
	return s
}

// checkSessions refuses what a multi-turn run cannot do: its history is
// chat messages, and it counts sessions.
func (o *Options) checkSessions() error {
	switch {
	case o.sessions() == nil:
		return nil
	case o.API != config.APIChat:
		return errors.New("a multi-turn run sends the history as chat messages: use --api chat")
	case o.ClosedLoop():
		return errors.New("multi-turn sessions arrive at --request-rate (sessions/s): drop --concurrency")
	case o.Duration > 0 || o.WarmupDuration > 0:
		return errors.New("multi-turn sessions are counted: use --num-prompts (sessions) and a --warmup count, not a duration")
	case o.Ramp != nil:
		return errors.New("no --ramp-up-strategy with multi-turn sessions")
	case len(o.sessions().Session(0)) == 0:
		return errors.New("a multi-turn session needs at least one turn")
	}
	return nil
}

// sessionLoop runs a multi-turn workload: sessions start on the open
// loop's schedule (Rate sessions/s, all at once if infinite); within one,
// each turn is planned ThinkTime after the previous answer ended and
// sent with the history so far. --max-concurrency caps requests (turns),
// not sessions. A failed turn ends its session: its history is broken.
func (r *runner) sessionLoop() {
	var wg sync.WaitGroup
	var sem chan struct{}
	if r.o.MaxConcurrency > 0 {
		sem = make(chan struct{}, r.o.MaxConcurrency)
	}
	arr := newArrivals(r.o.Rate, r.o.Burstiness, r.o.Seed)
	r.waker = newWaker()
	defer r.waker.close()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var next atomic.Int64 // request indexes, in send order across sessions
	for s := 0; s < r.o.WarmupRequests+r.o.NumPrompts; s++ {
		planned := arr.next()
		warmup := s < r.o.WarmupRequests
		if r.ctx.Err() != nil || !r.sleepUntil(timer, planned-sendLead) {
			break
		}
		if !warmup && r.warmupEnd.Load() < 0 {
			r.warmupEnd.Store(int64(planned))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.session(s, planned, warmup, sem, &next)
		}()
	}
	wg.Wait()
}

// session sends session s's turns, the first at planned.
func (r *runner) session(s int, planned time.Duration, warmup bool, sem chan struct{}, next *atomic.Int64) {
	ss := r.o.sessions()
	turns := ss.Session(s)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	msgs := make([]config.Message, 0, 2*len(turns))
	history := 0 // planned tokens of the messages so far
	for k, t := range turns {
		if k > 0 {
			planned = time.Since(r.started) + ss.ThinkTime()
			if !r.sleepUntil(timer, planned-sendLead) {
				return
			}
		}
		waited := false
		if sem != nil {
			select {
			case sem <- struct{}{}:
			default:
				waited = true
				select {
				case sem <- struct{}{}:
				case <-r.ctx.Done():
					return
				}
			}
		}
		msgs = append(msgs, config.Message{Role: "user", Content: t.User})
		history += t.UserTokens
		it := Item{Prompt: t.User, PromptTokens: history, OutputTokens: t.OutputTokens}
		m := r.module(it)
		m.Messages = msgs
		r.inflight.Add(1)
		i := int(next.Add(1) - 1)
		if !warmup {
			r.measured.Add(1)
		}
		res := r.send(i, planned, it, m, k+1, warmup, true, waited)
		if sem != nil {
			<-sem
		}
		if !res.Success() {
			return
		}
		msgs = append(msgs, config.Message{Role: "assistant", Content: res.Output})
		history += res.OutputTokens
	}
}

// turnCap is the last turn reported on its own; later turns share a row.
const turnCap = 10

// TurnStats are the measured requests of one turn index of a multi-turn
// run: TTFT by turn shows what the prefix cache gives the growing history.
type TurnStats struct {
	Turn      int  // 1-based
	AndLater  bool // the row also holds every later turn
	Requests  int
	Completed int
	TTFT      Stats
	// CachedPercent is the share of the server's prompt tokens it served
	// from its prefix cache (where usage reports them).
	CachedPercent float64
}

// summarizeTurns fills rep.Turns for a multi-turn run.
func summarizeTurns(r *Run, rep *Report, ps []float64) {
	if r.Opts.sessions() == nil {
		return
	}
	type acc struct {
		ttft           []float64
		n, ok          int
		prompt, cached int
	}
	var rows [turnCap]acc
	last := 0
	for i := range r.Records {
		rec := &r.Records[i]
		if rec.Warmup || rec.Turn < 1 {
			continue
		}
		k := min(int(rec.Turn), turnCap) - 1
		last = max(last, k)
		a := &rows[k]
		a.n++
		if rec.Success() {
			a.ok++
			a.ttft = append(a.ttft, ms(rec.TTFT))
			a.prompt += int(rec.PromptTokens)
			a.cached += int(rec.CachedTokens)
		}
	}
	for k := 0; k <= last; k++ {
		a := &rows[k]
		t := TurnStats{Turn: k + 1, AndLater: k == turnCap-1, Requests: a.n, Completed: a.ok, TTFT: exactStats(a.ttft, ps)}
		if a.prompt > 0 {
			t.CachedPercent = 100 * float64(a.cached) / float64(a.prompt)
		}
		rep.Turns = append(rep.Turns, t)
	}
}

// turnKeys are the JSON keys of a multi-turn run.
func (rep *Report) turnKeys() []KV {
	if len(rep.Turns) == 0 {
		return nil
	}
	out := make([]map[string]any, 0, len(rep.Turns))
	for _, t := range rep.Turns {
		out = append(out, map[string]any{"turn": t.Turn, "and_later": t.AndLater, "requests": t.Requests,
			"completed": t.Completed, "ttft_ms": statsMap(t.TTFT), "cached_prompt_percent": t.CachedPercent})
	}
	return []KV{{"llm_prober_turns", out}}
}

// writeTurns prints a multi-turn run's TTFT by turn.
func (rep *Report) writeTurns(w io.Writer) {
	if len(rep.Turns) == 0 {
		return
	}
	fmt.Fprintln(w, center("TTFT by turn (prefix-cache reuse)", '-'))
	fmt.Fprintf(w, "%-6s %-9s %-9s %-10s %-10s %s\n", "turn", "requests", "ok", "p50 ms", "p99 ms", "cached prompt %")
	for _, t := range rep.Turns {
		name := strconv.Itoa(t.Turn)
		if t.AndLater {
			name += "+"
		}
		fmt.Fprintf(w, "%-6s %-9d %-9d %-10.2f %-10.2f %.1f\n", name, t.Requests, t.Completed, t.TTFT.Median, t.TTFT.Value(99), t.CachedPercent)
	}
	fmt.Fprintln(w, "(each turn resends the whole history: its TTFT stays near turn 1's only as far as the prefix cache serves the history; cached % per the server's usage)")
}
