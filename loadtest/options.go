package loadtest

import (
	"errors"
	"math"
	"net/http"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/loadtest/workload"
	"github.com/llm-prober/llm-prober/prober"
)

// Options configure one run.
type Options struct {
	Target   *config.Target // URL, model and HTTP client settings
	API      config.API     // chat or completions
	Client   *http.Client   // prober.NewLoadClient(Target, ...): kernel receive times
	Workload workload.Workload

	// NumPrompts is the number of measured requests; Duration instead
	// sends (open loop) or runs (closed loop) for that long. Warm-up
	// requests come on top.
	NumPrompts int
	Duration   time.Duration

	// Open loop: Rate requests/s (+Inf: all at once) with gamma-distributed
	// gaps of shape Burstiness (1: Poisson), at most MaxConcurrency in
	// flight (0: no cap). Burstiness 0 means 1; a negative one is an error.
	Rate           float64
	Burstiness     float64
	MaxConcurrency int
	// Concurrency > 0 makes the run closed-loop: that many users, each
	// sending its next request when the last one ends.
	Concurrency int
	// Ramp, if set, changes the open-loop rate over the run (Rate must
	// be +Inf, unset); a Timeline workload (a trace) sets the send times
	// itself. See shape.go.
	Ramp *Ramp

	// Warm-up requests (the first WarmupRequests, or those planned in the
	// first WarmupDuration) are sent but not measured. At an infinite
	// rate they are sent by WarmupConcurrency() workers, never all at once.
	WarmupRequests int
	WarmupDuration time.Duration

	Seed int64
	// Shard, if set, sends only this part of the schedule (shard.Shard:
	// every shard builds the same one from Seed); StartAt, if set, is the
	// schedule's origin, an absolute time all shards share: Execute
	// waits for it.
	Shard   shard.Shard
	StartAt time.Time
	Timeout time.Duration // per request; default 10 minutes
	// IdleTimeout fails a request that receives nothing for this long
	// (no headers, no body bytes); default DefaultIdleTimeout.
	IdleTimeout time.Duration
	IgnoreEOS   bool // pin output lengths: ignore_eos and min_tokens = max_tokens
	Temperature *float64
	ExtraBody   map[string]any
	// NoContinuousUsage turns off stream_options.continuous_usage_stats
	// for servers that reject it.
	NoContinuousUsage bool

	// Progress is called about four times a second, and once at the end.
	Progress func(Progress)
	// OnResult sees every finished request, one at a time (for the
	// per-request output file); warm-up requests included, marked.
	OnResult func(rec *Record, res *prober.Result)
	// IDPrefix starts every X-Request-Id (default "bench").
	IDPrefix  string
	UserAgent string
}

// DefaultWarmupConcurrency is the most warm-up requests in flight at an
// infinite rate without --max-concurrency.
const DefaultWarmupConcurrency = 8

// WarmupConcurrency is the most warm-up requests in flight at an
// infinite rate: --max-concurrency, else DefaultWarmupConcurrency.
func (o *Options) WarmupConcurrency() int {
	if o.MaxConcurrency > 0 {
		return o.MaxConcurrency
	}
	return DefaultWarmupConcurrency
}

// ClosedLoop reports whether the run is closed-loop.
func (o *Options) ClosedLoop() bool { return o.Concurrency > 0 }

func (o *Options) Check() error {
	if err := o.checkShape(); err != nil {
		return err
	}
	if err := o.checkSessions(); err != nil {
		return err
	}
	switch {
	case o.Target == nil || o.Client == nil || o.Workload == nil:
		return errors.New("loadtest: Target, Client and Workload are required")
	case o.NumPrompts <= 0 && o.Duration <= 0:
		return errors.New("set a number of prompts or a duration")
	case o.Concurrency < 0 || o.MaxConcurrency < 0:
		return errors.New("concurrency cannot be negative")
	case o.Burstiness < 0 || math.IsNaN(o.Burstiness) || math.IsInf(o.Burstiness, 0):
		return errors.New("the burstiness (gamma shape of the arrival gaps) must be positive: 1 is Poisson")
	case o.Temperature != nil && (*o.Temperature < 0 || math.IsNaN(*o.Temperature) || math.IsInf(*o.Temperature, 0)):
		return errors.New("the temperature must be a finite number ≥ 0")
	case !o.ClosedLoop() && (o.Rate <= 0 || math.IsNaN(o.Rate)):
		return errors.New("the request rate must be positive (inf for all at once), or set a concurrency for a closed loop")
	case !o.ClosedLoop() && math.IsInf(o.Rate, 1) && o.Duration > 0 && o.MaxConcurrency == 0:
		return errors.New("an infinite rate for a duration needs --max-concurrency (else it sends without end)")
	case o.Timeout < 0 || o.IdleTimeout < 0:
		return errors.New("timeouts cannot be negative")
	case o.WarmupDuration > 0 && o.WarmupRequests > 0:
		return errors.New("warm-up is a number of requests or a duration, not both")
	case o.Shard.Count > 1:
		return o.Shard.Check()
	}
	return nil
}

// Progress is a snapshot of a running test.
type Progress struct {
	Elapsed   time.Duration
	Done      int // finished requests, warm-up included
	Total     int // requests the run will send (0 when it runs for a duration)
	Failed    int
	InFlight  int
	Remaining time.Duration // the duration left, when it runs for one
	Final     bool
	// ClosedLoop is set in a closed-loop run: users send until the
	// duration ends, with no schedule to fall behind.
	ClosedLoop bool
}
