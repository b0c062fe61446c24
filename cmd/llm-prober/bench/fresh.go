package bench

import (
	"context"
	"fmt"
	"maps"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// freshness is how each run's prompts are kept out of the server's prefix
// cache, as vllm bench sweep does: a new seed per sweep point, a
// cache_salt per run on vLLM, and a prefix-cache reset before each run
// where the server offers one. Off with --no-fresh-prompts, and when the
// workload asks for sharing (--prefix-tokens).
type freshness struct {
	On        bool  `json:"fresh"`
	Seed      int64 `json:"seed"`
	CacheSalt bool  `json:"cache_salt"`
	Reset     bool  `json:"prefix_cache_reset"`
}

// freshen sets run k's seed, workload and cache_salt in o, and resets the
// server's prefix cache first where it can; it returns what it did.
func (env *benchEnv) freshen(ctx context.Context, o *loadtest.Options, k int) freshness {
	b := env.b
	f := freshness{Seed: b.Seed}
	if !b.FreshPrompts || b.PrefixTokens > 0 {
		return f
	}
	f.On, f.Seed = true, b.Seed+int64(k)
	o.Seed, o.Workload = f.Seed, workload.Reseed(env.workload, f.Seed)
	ok, err := workload.ResetPrefixCache(ctx, env.client, env.target)
	if err != nil {
		fmt.Fprintf(env.log, "prefix-cache reset: %v\n", err)
	}
	f.Reset = ok
	if env.isVLLM(ctx, ok) {
		body := maps.Clone(o.ExtraBody)
		if body == nil {
			body = map[string]any{}
		}
		body["cache_salt"] = workload.NewCacheSalt()
		o.ExtraBody, f.CacheSalt = body, true
	}
	return f
}

// isVLLM reports whether the target takes cache_salt (vLLM is the one
// server known to): its configured backend's capability, a reset endpoint
// that answered, or (with server metrics on) the backend its /metrics
// families show.
func (env *benchEnv) isVLLM(ctx context.Context, resetOK bool) bool {
	if env.vllm != nil {
		return *env.vllm
	}
	v := backend.CapsOf(string(env.target.Backend)).CacheSalt || resetOK
	if !v && env.target.Backend == backend.Auto && env.b.ServerMetrics {
		if s, err := collector.ScrapeSignals(ctx, env.client, env.target); err == nil {
			v = backend.CapsOf(s.Backend).CacheSalt
		}
	}
	env.vllm = &v
	return v
}

// String says what was used, for the report.
func (f freshness) String() string {
	if !f.On {
		return fmt.Sprintf("the same prompts every run (seed %d; --prefix-tokens or --no-fresh-prompts)", f.Seed)
	}
	s := fmt.Sprintf("fresh: seed %d", f.Seed)
	if f.CacheSalt {
		s += ", a new cache_salt"
	}
	if f.Reset {
		s += ", prefix cache reset before the run"
	} else {
		s += ", no prefix-cache reset (the server offers none)"
	}
	return s
}

// sweepString says what a sweep whose first point did f used.
func (f freshness) sweepString() string {
	if !f.On {
		return f.String()
	}
	s := fmt.Sprintf("fresh per point: seed %d + point number", f.Seed)
	if f.CacheSalt {
		s += ", a new cache_salt each point"
	}
	if f.Reset {
		s += ", prefix cache reset before each point"
	} else {
		s += ", no prefix-cache reset (the server offers none)"
	}
	return s
}
