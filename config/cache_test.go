package config

import "testing"

func TestCacheAndPromptTokens(t *testing.T) {
	c := mustLoad(t, `
modules:
  plain:
    messages: [{role: user, content: hi}]
  long:
    prompt_tokens: 2048
    cache: paired
  text:
    api: completions
    prompt_tokens: 128
    cache: cold
    extra_body: {top_p: 0.5}
  salted:
    messages: [{role: user, content: hi}]
    extra_body: {cache_salt: mine}
targets:
  - name: t
    url: http://127.0.0.1:8000
    model: x
    modules: [plain, long, text, salted]
`)
	for name, want := range map[string]struct {
		cache  CacheMode
		tokens int
		cold   bool
	}{
		"plain": {CacheWarm, 0, false}, "long": {CachePaired, 2048, true},
		"text": {CacheCold, 128, true}, "salted": {CacheWarm, 0, false},
	} {
		m := c.Modules[name]
		if m.Cache != want.cache || m.PromptTokens != want.tokens || m.Cold() != want.cold {
			t.Errorf("%s: cache %q prompt_tokens %d cold %v, want %+v", name, m.Cache, m.PromptTokens, m.Cold(), want)
		}
	}
	a, b := *c.Modules["long"], *c.Modules["long"]
	b.PromptTokens = 4096
	if a.Equal(&b) {
		t.Error("modules differing in prompt_tokens compare equal")
	}
	b = a
	b.Cache = CacheCold
	if a.Equal(&b) {
		t.Error("modules differing in cache compare equal")
	}
}
