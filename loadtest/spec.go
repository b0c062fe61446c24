package loadtest

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// Spec is what of Options defines a run's schedule and its summary: a
// shard writes it to its result file, and bench merge checks that every
// shard ran the same one and summarises their union with Options().
type Spec struct {
	API            string  `json:"api"`
	Rate           string  `json:"rate"` // a number, or "inf"
	Burstiness     float64 `json:"burstiness"`
	MaxConcurrency int     `json:"max_concurrency"`
	Concurrency    int     `json:"concurrency"`
	NumPrompts     int     `json:"num_prompts"`
	Duration       int64   `json:"duration_ns"`
	WarmupRequests int     `json:"warmup_requests"`
	WarmupDuration int64   `json:"warmup_duration_ns"`
	Seed           int64   `json:"seed"`
	IgnoreEOS      bool    `json:"ignore_eos"`
	Ramp           *Ramp   `json:"ramp,omitempty"`
	Workload       string  `json:"workload"` // Describe()
	Trace          bool    `json:"trace,omitempty"`
	Sessions       bool    `json:"sessions,omitempty"`
}

// Spec is o's.
func (o *Options) Spec() Spec {
	s := Spec{API: string(o.API), Rate: strconv.FormatFloat(o.Rate, 'g', -1, 64), Burstiness: o.Burstiness,
		MaxConcurrency: o.MaxConcurrency, Concurrency: o.Concurrency, NumPrompts: o.NumPrompts,
		Duration: int64(o.Duration), WarmupRequests: o.WarmupRequests, WarmupDuration: int64(o.WarmupDuration),
		Seed: o.Seed, IgnoreEOS: o.IgnoreEOS, Ramp: o.Ramp, Trace: o.Timeline() != nil, Sessions: o.Sessions() != nil}
	if o.Workload != nil {
		s.Workload = o.Workload.Describe()
	}
	return s
}

// Options are the settings a summary of s's run reads, with a stand-in
// workload that names s's and is of its kind (a trace, sessions): it
// cannot send anything.
func (s Spec) Options() (Options, error) {
	rate, err := strconv.ParseFloat(s.Rate, 64)
	if err != nil || math.IsNaN(rate) || rate < 0 {
		return Options{}, fmt.Errorf("rate %q is not a rate", s.Rate)
	}
	if s.Burstiness < 0 || math.IsNaN(s.Burstiness) || s.NumPrompts < 0 || s.WarmupRequests < 0 ||
		s.Concurrency < 0 || s.MaxConcurrency < 0 || s.Duration < 0 || s.WarmupDuration < 0 {
		return Options{}, fmt.Errorf("a negative or invalid setting in %+v", s)
	}
	if s.Ramp != nil {
		if err := s.Ramp.Check(); err != nil {
			return Options{}, err
		}
	}
	var w workload.Workload = recorded{s.Workload}
	switch {
	case s.Sessions:
		w = recordedSessions{recorded{s.Workload}}
	case s.Trace:
		w = recordedTrace{recorded{s.Workload}, s.NumPrompts + s.WarmupRequests}
	}
	return Options{API: config.API(s.API), Rate: rate, Burstiness: s.Burstiness, MaxConcurrency: s.MaxConcurrency,
		Concurrency: s.Concurrency, NumPrompts: s.NumPrompts, Duration: time.Duration(s.Duration),
		WarmupRequests: s.WarmupRequests, WarmupDuration: time.Duration(s.WarmupDuration), Seed: s.Seed,
		IgnoreEOS: s.IgnoreEOS, Ramp: s.Ramp, Workload: w}, nil
}

// recorded stands in for a workload known only by its description.
type recorded struct{ desc string }

func (r recorded) Item(int) workload.Item { return workload.Item{} }
func (r recorded) Describe() string       { return r.desc }

type recordedSessions struct{ recorded }

func (recordedSessions) Session(int) []workload.Turn { return nil }
func (recordedSessions) ThinkTime() time.Duration    { return 0 }

type recordedTrace struct {
	recorded
	n int
}

func (recordedTrace) At(int) time.Duration { return 0 }
func (t recordedTrace) Len() int           { return t.n }
