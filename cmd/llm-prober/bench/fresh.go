package bench

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"maps"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// freshness is how each run's prompts are kept out of the server's prefix
// cache, as vllm bench sweep does: a random seed per invocation (unless
// --seed), a new seed per sweep point, a cache_salt per run on vLLM, and a
// prefix-cache reset before each run where the server offers one. Off
// with --no-fresh-prompts, and when the workload asks for sharing
// (--prefix-tokens).
type freshness struct {
	// On: the prompts are out of this server's prefix cache: new to it (a
	// random seed), salted, or the cache emptied first. A given --seed on
	// a server with neither salt nor reset repeats an earlier run's
	// prompts, which its cache may serve: not fresh.
	On         bool  `json:"fresh"`
	Seed       int64 `json:"seed"`
	SeedRandom bool  `json:"seed_random"` // drawn at random: --seed Seed repeats the run
	CacheSalt  bool  `json:"cache_salt"`
	Reset      bool  `json:"prefix_cache_reset"`
	asked      bool  // --fresh-prompts and no --prefix-tokens
	reseeded   bool  // the workload draws other prompts with another seed
}

// freshAsked reports whether runs are to be kept out of the prefix cache.
func (b *Config) freshAsked() bool { return b.FreshPrompts && b.PrefixTokens == 0 }

// drawSeed gives a run without --seed a random seed, so that it sends no
// earlier run's prompts; it says so, with the flag that repeats the run.
func (env *benchEnv) drawSeed() {
	b := env.b
	if b.SeedSet || !b.freshAsked() {
		return
	}
	var raw [8]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	// Below 2^40: short to print, and seed + k never overflows.
	b.Seed, env.seedRandom = int64(binary.LittleEndian.Uint64(raw[:])%(1<<40-1))+1, true
	fmt.Fprintf(env.log, "seed %d drawn at random (--seed %d repeats this run exactly)\n", b.Seed, b.Seed)
}

// freshen sets run k's seed, workload and cache_salt in o, and resets the
// server's prefix cache first where it can; it returns what it did.
func (env *benchEnv) freshen(ctx context.Context, o *loadtest.Options, k int) freshness {
	b := env.b
	f := freshness{Seed: b.Seed}
	if !b.freshAsked() {
		return f
	}
	f.asked, f.Seed, f.SeedRandom = true, b.Seed+int64(k), env.seedRandom
	_, f.reseeded = env.workload.(workload.Reseedable)
	o.Seed, o.Workload = f.Seed, workload.Reseed(env.workload, f.Seed)
	ok, err := false, error(nil)
	if env.shard.Index == 0 { // one reset per run, not one per shard
		ok, err = workload.ResetPrefixCache(ctx, env.client, env.target, b.Timeout)
	}
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
	f.On = f.Reset || f.CacheSalt || (f.reseeded && f.SeedRandom)
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
	return f.describe(fmt.Sprintf("seed %d", f.Seed), "", "")
}

// sweepString says what a sweep whose first point did f used.
func (f freshness) sweepString() string {
	return f.describe(fmt.Sprintf("seed %d + point number", f.Seed), " per point", " each point")
}

// describe says what was used; seed names the seed(s), per and each say
// how often (a sweep's points).
func (f freshness) describe(seed, per, each string) string {
	if !f.asked {
		return fmt.Sprintf("the same prompts every run (seed %d; --prefix-tokens or --no-fresh-prompts)", f.Seed)
	}
	how := ""
	if f.SeedRandom {
		how = fmt.Sprintf(" (random; --seed %d repeats it)", f.Seed)
	}
	salt := ", no cache_salt (the server takes none)"
	if f.CacheSalt {
		salt = ", a new cache_salt" + each
	}
	reset := ", no prefix-cache reset (the server offers none)"
	if f.Reset {
		reset = ", prefix cache reset before each run"
		if per != "" {
			reset = ", prefix cache reset before each point"
		}
	}
	if !f.On {
		return fmt.Sprintf("NOT fresh across runs: %s given, so the prompts repeat any earlier run with --seed %d, and this server (no cache_salt, no prefix-cache reset) may serve them from its prefix cache; drop --seed for a random one",
			seed, f.Seed)
	}
	return "fresh" + per + ": " + seed + how + salt + reset
}
