package prompt

import (
	"slices"
	"testing"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// Each backend's /tokenize dialects come from its declaration, and are
// ones this package speaks (an unknown one would silently get vLLM's
// body); auto tries every dialect, an unknown backend none.
func TestDialectsFollowTheBackends(t *testing.T) {
	for _, b := range backend.All() {
		if got := Dialects(config.Backend(b.Name)); !slices.Equal(got, b.Tokenize) {
			t.Errorf("%s: Dialects %v, declared %v", b.Name, got, b.Tokenize)
		}
		for _, d := range b.Tokenize {
			if !slices.Contains(autoDialects, d) {
				t.Errorf("%s declares dialect %q, which this package does not speak (%v)", b.Name, d, autoDialects)
			}
		}
	}
	for _, auto := range []config.Backend{"", backend.Auto} {
		got := Dialects(auto)
		if !slices.Equal(got, []Dialect{backend.TokenizeVLLM, backend.TokenizeLlamaCPP, backend.TokenizeTGI}) {
			t.Errorf("Dialects(%q) = %v, want vllm, llamacpp, tgi", auto, got)
		}
		got[0] = "mutated" // each caller gets its own slice
	}
	if Dialects(backend.Auto)[0] != backend.TokenizeVLLM {
		t.Error("a caller's change to Dialects(auto) reached the next caller")
	}
	if got := Dialects("ollama"); got != nil {
		t.Errorf("unknown backend: dialects %v, want none", got)
	}
}
