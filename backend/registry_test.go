package backend_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/backend"
)

// The registry is what config, collector, prompt, the prober and bench
// read: names unique and in Rank order, auto reserved and first, and
// every backend with a mapping recognisable by prefixes no other backend
// claims (else auto-detection could not tell them apart).
func TestRegistry(t *testing.T) {
	all := backend.All()
	if len(all) < 6 {
		t.Fatalf("%d backends registered, want at least vllm, sglang, tgi, llamacpp, trtllm, openai", len(all))
	}
	names := backend.Names()
	if names[0] != backend.Auto || len(names) != len(all)+1 {
		t.Errorf("Names() = %v, want auto then every backend", names)
	}
	if backend.Get(backend.Auto) != nil || backend.Get("") != nil || backend.Get("ollama") != nil {
		t.Error("Get answers for auto, an empty or an unknown name")
	}
	if backend.CapsOf(backend.Auto) != (backend.Caps{}) || backend.CapsOf("ollama") != (backend.Caps{}) {
		t.Error("auto or an unknown name promises capabilities")
	}
	owner := map[string]string{}
	for i, b := range all {
		if names[i+1] != b.Name || backend.Get(b.Name) != b {
			t.Errorf("%s: not at its place in Names() %v, or Get does not find it", b.Name, names)
		}
		if i > 0 && all[i-1].Rank > b.Rank {
			t.Errorf("%s (rank %d) listed after %s (rank %d)", b.Name, b.Rank, all[i-1].Name, all[i-1].Rank)
		}
		if b.Name != strings.ToLower(b.Name) || strings.ContainsAny(b.Name, " _:.-") || b.Title == "" {
			t.Errorf("%q: a name is a lower-case word and a backend has a title (%q)", b.Name, b.Title)
		}
		if len(b.Rules) > 0 && len(b.Prefixes) == 0 {
			t.Errorf("%s maps metrics but has no prefixes to detect it by", b.Name)
		}
		for _, p := range b.Prefixes {
			for q, other := range owner {
				if strings.HasPrefix(p, q) || strings.HasPrefix(q, p) {
					t.Errorf("prefix %q of %s overlaps %q of %s", p, b.Name, q, other)
				}
			}
			owner[p] = b.Name
		}
		for alias, canon := range b.Aliases {
			if !slices.Contains(b.Prefixes, alias) || !slices.Contains(b.Prefixes, canon) {
				t.Errorf("%s: alias %q → %q: both must be prefixes for detection", b.Name, alias, canon)
			}
		}
		for _, r := range b.Rules {
			if r.Family == "" || len(r.Sources) == 0 {
				t.Errorf("%s: a rule without family or sources: %+v", b.Name, r)
			}
			for _, s := range r.Sources {
				if !b.Owns(s.Name) && !strings.HasPrefix(s.Name, "process_") {
					t.Errorf("%s: source %q carries none of its prefixes %v", b.Name, s.Name, b.Prefixes)
				}
			}
		}
	}
}

// Capabilities are what bench and the prober rely on instead of names:
// vLLM takes cache_salt (docs/definitions.md, "cache: cold"); auto promises nothing.
func TestCaps(t *testing.T) {
	if !backend.CapsOf(backend.VLLM).CacheSalt {
		t.Error("vllm does not take cache_salt")
	}
	for _, b := range backend.All() {
		if backend.CapsOf(b.Name) != b.Caps {
			t.Errorf("%s: CapsOf differs from the declaration", b.Name)
		}
	}
}
