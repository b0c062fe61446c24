package loadtest

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// Sessions is o's workload as Sessions, nil if it is one request an item.
func (o *Options) Sessions() workload.Sessions {
	s, _ := o.Workload.(workload.Sessions)
	return s
}

// checkSessions refuses what a multi-turn run cannot do: its history is
// chat messages, and it counts sessions.
func (o *Options) checkSessions() error {
	switch {
	case o.Sessions() == nil:
		return nil
	case o.API != config.APIChat:
		return errors.New("a multi-turn run sends the history as chat messages: use --api chat")
	case o.ClosedLoop():
		return errors.New("multi-turn sessions arrive at --request-rate (sessions/s): drop --concurrency")
	case o.Duration > 0 || o.WarmupDuration > 0:
		return errors.New("multi-turn sessions are counted: use --num-prompts (sessions) and a --warmup count, not a duration")
	case o.Ramp != nil:
		return errors.New("no --ramp-up-strategy with multi-turn sessions")
	case len(o.Sessions().Session(0)) == 0:
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
	arr := stats.NewArrivals(r.o.Rate, r.o.Burstiness, r.o.Seed)
	r.waker = newWaker()
	defer r.waker.close()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var next atomic.Int64 // request indexes, in send order across sessions
	for s := 0; s < r.o.WarmupRequests+r.o.NumPrompts; s++ {
		planned := arr.Next()
		warmup := s < r.o.WarmupRequests
		if r.ctx.Err() != nil || !r.sleepUntil(timer, planned-sendLead) {
			break
		}
		if !warmup && r.warmupEnd.Load() < 0 {
			r.warmupEnd.Store(int64(planned))
		}
		if !r.o.Shard.Owns(s) {
			continue // another shard's session
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
	ss := r.o.Sessions()
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
		it := workload.Item{Prompt: t.User, PromptTokens: history, OutputTokens: t.OutputTokens}
		m := r.module(it)
		m.Messages = msgs
		r.inflight.Add(1)
		i := r.o.Shard.Global(int(next.Add(1) - 1))
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
