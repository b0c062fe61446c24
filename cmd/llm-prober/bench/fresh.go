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
func (env *benchEnv) freshen(ctx context.Context, o *loadtest.Options, k int) workload.Freshness {
	b := env.b
	f := workload.Freshness{Seed: b.Seed}
	if !b.freshAsked() {
		return f
	}
	f.Asked, f.Seed, f.SeedRandom = true, b.Seed+int64(k), env.seedRandom
	_, f.Reseeded = env.workload.(workload.Reseedable)
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
	f.On = f.Reset || f.CacheSalt || (f.Reseeded && f.SeedRandom)
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
