package loadtest

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// Ramp strategies, vllm bench serve's --ramp-up-strategy.
const (
	RampLinear      = "linear"
	RampExponential = "exponential"
)

// Ramp makes the open-loop rate change over the run, as vllm bench
// serve's ramp-up: request i of n arrives at Start + (End−Start)·p
// (linear) or Start·(End/Start)^p (exponential) req/s, p = i/(n−1), the
// gap before it drawn at that rate with the run's burstiness. It counts
// by request, not by time, so it needs a number of requests.
type Ramp struct {
	Strategy   string
	Start, End float64 // req/s
}

// Check applies vllm bench's rules: both rates ≥ 0, start ≤ end, end > 0,
// and an exponential ramp cannot start at 0.
func (r *Ramp) Check() error {
	switch {
	case r.Strategy != RampLinear && r.Strategy != RampExponential:
		return fmt.Errorf("--ramp-up-strategy %q: linear or exponential", r.Strategy)
	case !(r.Start >= 0) || !(r.End > 0) || math.IsInf(r.Start, 0) || math.IsInf(r.End, 0):
		return errors.New("--ramp-up-start-rps must be ≥ 0 and --ramp-up-end-rps > 0, both finite")
	case r.Start > r.End:
		return fmt.Errorf("--ramp-up-start-rps %g is above --ramp-up-end-rps %g: a ramp goes up", r.Start, r.End)
	case r.Strategy == RampExponential && r.Start == 0:
		return errors.New("an exponential ramp cannot start at 0 req/s: give --ramp-up-start-rps > 0")
	}
	return nil
}

// RateAt is the nominal rate of request i of n (vllm bench's
// _get_current_request_rate).
func (r *Ramp) RateAt(i, n int) float64 {
	p := float64(i) / float64(max(n-1, 1))
	p = min(max(p, 0), 1)
	if r.Strategy == RampExponential {
		return r.Start * math.Pow(r.End/r.Start, p)
	}
	return r.Start + (r.End-r.Start)*p
}

// Describe names the ramp in the report.
func (r *Ramp) Describe() string {
	return fmt.Sprintf("%s ramp-up %s → %s req/s", r.Strategy, textfmt.FmtG(r.Start), textfmt.FmtG(r.End))
}

// Timeline is a workload that says when each request is sent (a trace):
// the open loop follows it instead of drawing arrivals.
type Timeline interface {
	workload.Workload
	// At is request i's planned send time from the first; Len how many
	// requests the timeline holds.
	At(i int) time.Duration
	Len() int
}

// Timeline is o's workload as a Timeline, nil if it draws arrivals.
func (o *Options) Timeline() Timeline {
	t, _ := o.Workload.(Timeline)
	return t
}

// Shaped reports whether the schedule is a ramp or a trace, not a
// constant rate: the run needs a number of requests and no --request-rate.
func (o *Options) Shaped() bool { return o.Ramp != nil || o.Timeline() != nil }

// checkShape refuses what a ramp or a trace cannot do.
func (o *Options) checkShape() error {
	if !o.Shaped() {
		return nil
	}
	name := "a trace replay"
	if o.Ramp != nil {
		name = "a ramp-up"
		if err := o.Ramp.Check(); err != nil {
			return err
		}
		if o.Timeline() != nil {
			return errors.New("a trace sets its own arrival times: no ramp-up with it")
		}
	}
	switch {
	case o.ClosedLoop():
		return fmt.Errorf("%s is open-loop: drop --concurrency", name)
	case o.Duration > 0 || o.WarmupDuration > 0:
		return fmt.Errorf("%s counts by request: use --num-prompts and a --warmup count, not a duration", name)
	case !math.IsInf(o.Rate, 1):
		return fmt.Errorf("%s sets the rate itself: leave --request-rate unset", name)
	}
	if t := o.Timeline(); t != nil && o.NumPrompts+o.WarmupRequests > t.Len() {
		return fmt.Errorf("the trace holds %d requests: --num-prompts %d and --warmup %d ask for more", t.Len(), o.NumPrompts, o.WarmupRequests)
	}
	return nil
}

// planner hands out the open loop's planned send times, in order.
type planner interface{ Next() time.Duration }

// timelinePlan follows a Timeline.
type timelinePlan struct {
	t Timeline
	i int
}

func (p *timelinePlan) Next() time.Duration {
	i := p.i
	p.i++
	if i >= p.t.Len() {
		return p.t.At(p.t.Len() - 1) // admit stops the run before this
	}
	return p.t.At(i)
}

// Plan is the open loop's schedule for o: the trace's times, a ramp, or
// Gamma arrivals at a constant rate.
func (o *Options) Plan() planner {
	if t := o.Timeline(); t != nil {
		return &timelinePlan{t: t}
	}
	a := stats.NewArrivals(o.Rate, o.Burstiness, o.Seed)
	if o.Ramp != nil {
		// The ramp spans the measured requests; the warm-up goes at the
		// start rate (a ramp from 0: its second request's, never all at
		// once). The gap before request i is drawn at its rate, so the
		// first measured request of a ramp from 0 follows at once.
		n, w, ramp := o.NumPrompts, o.WarmupRequests, o.Ramp
		warm := ramp.Start
		if warm == 0 {
			warm = ramp.RateAt(1, n)
		}
		a.RateAt = func(i int) float64 {
			if i < w {
				return warm
			}
			return ramp.RateAt(i-w, n)
		}
	}
	return a
}
