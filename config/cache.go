package config

// CacheMode says whether a module's probes may be served from the
// server's prefix cache.
type CacheMode string

const (
	// CacheWarm sends the same prompt every time: after the first probe
	// the server serves it from its prefix cache (the default).
	CacheWarm CacheMode = "warm"
	// CacheCold makes every probe's prompt new to the server: vLLM's
	// cache_salt where the backend is vllm, else a unique prefix.
	CacheCold CacheMode = "cold"
	// CachePaired sends a cold probe and, right after it, the same
	// request again (warm), and exports both TTFTs and their ratio.
	CachePaired CacheMode = "paired"
)

// CacheModes lists the valid cache modes.
var CacheModes = []CacheMode{CacheWarm, CacheCold, CachePaired}

// Prompt-length profiles: the bounds of prompt_tokens.
const (
	MinPromptTokens = 16
	MaxPromptTokens = 1 << 20
)

// Cold reports whether a module's (first) request must miss the prefix
// cache.
func (m *Module) Cold() bool { return m.Cache == CacheCold || m.Cache == CachePaired }

// cache checks cache and prompt_tokens and sets the default mode.
func (c *checker) cache(path string, m *Module) {
	switch m.Cache {
	case "":
		m.Cache = CacheWarm
	case CacheWarm, CacheCold, CachePaired:
	default:
		c.errf(path+".cache", "unknown cache mode %q (want one of %v)", m.Cache, CacheModes)
	}
	if _, ok := m.ExtraBody["cache_salt"]; ok && m.Cold() {
		c.errf(join(path+".extra_body", "cache_salt"), "cache_salt is set by the prober for cache: %s modules", m.Cache)
	}
	if c.set(path+".prompt_tokens") && (m.PromptTokens < MinPromptTokens || m.PromptTokens > MaxPromptTokens) {
		c.errf(path+".prompt_tokens", "prompt_tokens must be between %d and %d, got %d", MinPromptTokens, MaxPromptTokens, m.PromptTokens)
	}
}
