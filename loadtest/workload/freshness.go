package workload

import "fmt"

// Freshness is how a run's prompts were kept out of the server's prefix
// cache, as vllm bench sweep does: a random seed per invocation (unless
// --seed), a new seed per sweep point, a cache_salt per run on vLLM, and
// a prefix-cache reset before each run where the server offers one. It
// is written into the result file ("llm_prober_prompts"), so that bench
// merge describes a merged sweep as bench did.
type Freshness struct {
	// On: the prompts are out of this server's prefix cache: new to it (a
	// random seed), salted, or the cache emptied first. A given --seed on
	// a server with neither salt nor reset repeats an earlier run's
	// prompts, which its cache may serve: not fresh.
	On         bool  `json:"fresh"`
	Seed       int64 `json:"seed"`
	SeedRandom bool  `json:"seed_random"` // drawn at random: --seed Seed repeats the run
	CacheSalt  bool  `json:"cache_salt"`
	Reset      bool  `json:"prefix_cache_reset"`
	Asked      bool  `json:"-"` // --fresh-prompts and no --prefix-tokens
	Reseeded   bool  `json:"-"` // the workload draws other prompts with another seed
}

// String says what was used, for the report.
func (f Freshness) String() string {
	return f.describe(fmt.Sprintf("seed %d", f.Seed), "", "")
}

// SweepString says what a sweep whose first point did f used.
func (f Freshness) SweepString() string {
	return f.describe(fmt.Sprintf("seed %d + point number", f.Seed), " per point", " each point")
}

// describe says what was used; seed names the seed(s), per and each say
// how often (a sweep's points).
func (f Freshness) describe(seed, per, each string) string {
	if !f.Asked {
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
