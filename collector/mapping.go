package collector

import (
	"sort"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// Source is one server family that feeds a normalised family (declared in
// package backend, one file per backend).
type Source = backend.Source

// Rule maps sources onto one normalised family, resolved from the
// backend's declaration.
type Rule struct {
	Family  *family
	Sources []Source
	All     bool
}

// Mapping is one backend's declaration (see backend.Backend) with its
// families resolved.
type Mapping struct {
	Backend     config.Backend
	Aliases     map[string]string
	ModelLabels []string
	Engine      func(labels map[string]string) string
	Rules       []Rule
	decl        *backend.Backend
}

// registry holds the mapping of every backend that has rules, keyed by
// name; a backend without (openai) gives health and passthrough only.
var registry = map[config.Backend]*Mapping{}

func init() {
	for _, b := range backend.All() {
		if len(b.Rules) == 0 {
			continue
		}
		m := &Mapping{Backend: config.Backend(b.Name), Aliases: b.Aliases, ModelLabels: b.ModelLabels, Engine: b.Engine, decl: b}
		for _, r := range b.Rules {
			f := families[r.Family]
			if f == nil { // a programming error any test run shows
				panic("collector: backend " + b.Name + " feeds unknown family " + string(r.Family))
			}
			m.Rules = append(m.Rules, Rule{Family: f, Sources: r.Sources, All: r.All})
		}
		registry[m.Backend] = m
	}
}

// detectBackend picks the mapping whose prefixes match the most families;
// ties go to the backend name that sorts first so the choice is stable.
func detectBackend(names []string) *Mapping {
	backends := make([]string, 0, len(registry))
	for b := range registry {
		backends = append(backends, string(b))
	}
	sort.Strings(backends)
	var best *Mapping
	bestN := 0
	for _, b := range backends {
		m := registry[config.Backend(b)]
		n := 0
		for _, name := range names {
			if m.decl.Owns(name) {
				n++
			}
		}
		if n > bestN {
			best, bestN = m, n
		}
	}
	return best
}
