package collector

import (
	"sort"
	"strings"

	"github.com/llm-prober/llm-prober/config"
)

// Source is one server family that feeds a normalised family.
type Source struct {
	// Name is the family name as exposed. Counters match with or without
	// the _total suffix, so either spelling works.
	Name string
	// Match keeps only series whose labels have these values.
	Match map[string]string
	// Labels fills our extra labels from source labels; the first source
	// label present wins (servers renamed some labels across versions).
	Labels map[string][]string
	// Const fills our extra labels with fixed values, or the default when
	// none of the Labels sources is present.
	Const map[string]string
	// Scale multiplies values, histogram bounds and sums (e.g. 0.001 for
	// ms); zero means 1.
	Scale float64
	// HistogramSum reads a histogram's _sum as a counter (TGI only has
	// token-count histograms; their sum is an honest counter).
	HistogramSum bool
	// ValueLabel reads the value from this label of an info series (e.g.
	// num_gpu_blocks of vllm:cache_config_info); series where it is not a
	// number are skipped.
	ValueLabel string
}

// Rule maps sources onto one normalised family.
type Rule struct {
	Family  *family
	Sources []Source
	// All sums every present source; otherwise the first present source
	// wins, which is how legacy names are aliased.
	All bool
}

// Mapping is the table for one backend. Adding a backend is adding a file
// that registers one of these.
type Mapping struct {
	Backend config.Backend
	// Prefixes identify the backend's families for auto-detection.
	Prefixes []string
	// Aliases maps an alternative prefix to the one the rules use (vLLM
	// under Ray Serve writes vllm_ for vllm:).
	Aliases map[string]string
	// ModelLabels feed our model label; the first non-empty wins. Without
	// one, the target's configured model is used.
	ModelLabels []string
	// Engine derives our engine label from a series' labels. Every other
	// source label not named in a rule is summed away.
	Engine func(labels map[string]string) string
	Rules  []Rule
}

// registry holds every backend mapping, keyed by backend name.
var registry = map[config.Backend]*Mapping{}

func register(m *Mapping) {
	if _, dup := registry[m.Backend]; dup {
		panic("collector: backend registered twice: " + string(m.Backend))
	}
	registry[m.Backend] = m
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
			if m.owns(name) {
				n++
			}
		}
		if n > bestN {
			best, bestN = m, n
		}
	}
	return best
}

func (m *Mapping) owns(name string) bool {
	for _, p := range m.Prefixes {
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
