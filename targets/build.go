// Package targets turns Prometheus service discovery into llm-prober
// targets and splits the whole target list across replicas (shards).
package targets

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery/targetgroup"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/relabel"

	"github.com/llm-prober/llm-prober/config"
)

// Why a discovered label set did not become a target.
const (
	DropRelabel   = "relabel"   // relabel_configs dropped it (on purpose)
	DropInvalid   = "invalid"   // it made an invalid target (no model, bad url…)
	DropDuplicate = "duplicate" // another target already has its name
	DropLimit     = "limit"     // over the entry's max_targets or MaxTargets (caps.go)
)

// dropReasons are the Drop* reasons in the order metrics list them.
var dropReasons = []string{DropRelabel, DropInvalid, DropDuplicate, DropLimit}

// Built is what one target_discovery entry produced from its groups.
type Built struct {
	Targets []*config.Target
	Dropped map[string]int // by Drop* reason
	// Errors are a few of the invalid targets' errors, for logs.
	Errors []error
}

const maxErrors = 5

// Build relabels every discovered label set of td's groups, as Prometheus
// builds scrape targets (group labels under target labels, __scheme__
// defaulting to http), and makes a target of each that is kept. The result
// is sorted by name so that every replica sees the same list.
func Build(td *config.TargetDiscovery, groups []*targetgroup.Group) Built {
	out := Built{Dropped: map[string]int{}}
	lb := labels.NewBuilder(labels.EmptyLabels())
	// In source order, so that the label sets past the cap are the
	// same on every replica (the manager hands groups over from a map).
	groups = slices.Clone(groups)
	slices.SortStableFunc(groups, func(a, b *targetgroup.Group) int {
		if a == nil || b == nil {
			return 0
		}
		return strings.Compare(a.Source, b.Source)
	})
	sets, maxSets := 0, LabelSetsPerTarget*entryLimit(td)
	for _, g := range groups {
		if g == nil {
			continue
		}
		for _, tls := range g.Targets {
			if sets++; sets > maxSets {
				out.Dropped[DropLimit]++
				continue
			}
			lb.Reset(labels.EmptyLabels())
			for n, v := range g.Labels {
				lb.Set(string(n), string(v))
			}
			for n, v := range tls {
				lb.Set(string(n), string(v))
			}
			if lb.Get(config.LabelScheme) == "" {
				lb.Set(config.LabelScheme, "http")
			}
			if !relabel.ProcessBuilder(lb, td.RelabelConfigs...) {
				out.Dropped[DropRelabel]++
				continue
			}
			ls := make(model.LabelSet, 8)
			lb.Range(func(l labels.Label) { ls[model.LabelName(l.Name)] = model.LabelValue(l.Value) })
			t, err := td.NewTarget(ls)
			if err != nil {
				out.Dropped[DropInvalid]++
				if len(out.Errors) < maxErrors {
					out.Errors = append(out.Errors, fmt.Errorf("%s in group %q: %w", cut(string(ls[config.LabelAddress])), cut(g.Source), err))
				}
				continue
			}
			out.Targets = append(out.Targets, t)
		}
	}
	sort.SliceStable(out.Targets, func(i, j int) bool { return out.Targets[i].Name < out.Targets[j].Name })
	return out
}

// cut shortens a discovered value for a log line: discovery sets any length.
func cut(s string) string {
	const shown = 128
	if len(s) <= shown {
		return s
	}
	return strings.ToValidUTF8(s[:shown], "") + "…"
}
