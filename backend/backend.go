package backend

import (
	"slices"
	"strings"
)

// Auto is the backend name that means "detect it": from the exposition for
// server metrics, by trying every dialect for /tokenize. It is not a
// registered backend.
const Auto = "auto"

// Backend is one server software.
type Backend struct {
	// Name is the value of a target's backend: and of our backend label.
	Name string
	// Title is how the docs write it (vLLM, llama.cpp).
	Title string
	// Rank orders backends in lists (config's error messages, the docs):
	// the most used first.
	Rank int
	// Tokenize lists the /tokenize dialects to try, in order; none where
	// the server has no such endpoint.
	Tokenize []Dialect
	// Caps is what the server takes beyond the OpenAI API.
	Caps Caps

	// Prefixes identify the backend's families for auto-detection: the
	// backend owning most of an exposition's families is the one.
	Prefixes []string
	// Aliases maps an alternative prefix to the one the rules use (vLLM
	// under Ray Serve writes vllm_ for vllm:).
	Aliases map[string]string
	// ModelLabels feed our model label; the first non-empty wins. Without
	// one, the target's configured model is used.
	ModelLabels []string
	// Engine derives our engine label from a series' labels; nil leaves
	// it empty. Every other source label not named in a rule is summed
	// away.
	Engine func(labels map[string]string) string
	// Rules map the server's families onto normalised ones; none for a
	// backend without server metrics (health and passthrough only).
	Rules []Rule
}

// Caps are the request features a backend is known to honour, consulted
// by the prober and bench instead of comparing names.
type Caps struct {
	// CacheSalt: the request's cache_salt enters the prefix-cache hash,
	// so a new salt makes a prompt cold without changing its tokens.
	CacheSalt bool
}

var registry []*Backend

// register adds b; a backend file calls it from init.
func register(b *Backend) {
	if b.Name == "" || b.Name == Auto || Get(b.Name) != nil {
		panic("backend: empty, reserved or duplicate name: " + b.Name)
	}
	registry = append(registry, b)
	slices.SortStableFunc(registry, func(x, y *Backend) int {
		if x.Rank != y.Rank {
			return x.Rank - y.Rank
		}
		return strings.Compare(x.Name, y.Name)
	})
}

// All returns every registered backend in Rank order.
func All() []*Backend { return slices.Clone(registry) }

// Get returns the backend named name, or nil (Auto, "", unknown).
func Get(name string) *Backend {
	for _, b := range registry {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// Names are the values a target's backend may take: Auto, then every
// registered backend in Rank order.
func Names() []string {
	names := []string{Auto}
	for _, b := range registry {
		names = append(names, b.Name)
	}
	return names
}

// CapsOf returns the capabilities of the backend named name; none for
// Auto or an unknown name, which promise nothing.
func CapsOf(name string) Caps {
	if b := Get(name); b != nil {
		return b.Caps
	}
	return Caps{}
}

// Owns reports whether a family name carries one of b's prefixes.
func (b *Backend) Owns(name string) bool {
	for _, p := range b.Prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// labelEngine returns an Engine func that reads one label as is.
func labelEngine(label string) func(map[string]string) string {
	return func(l map[string]string) string { return l[label] }
}
