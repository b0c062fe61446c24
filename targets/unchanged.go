package targets

import (
	"hash/fnv"
	"maps"
	"slices"
	"strconv"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery/targetgroup"

	"github.com/llm-prober/llm-prober/config"
)

// groupsSum fingerprints every entry's groups (entries by name, groups by
// source, targets in order): equal sums mean an update changes nothing.
// It is never 0, which marks "none yet".
func groupsSum(all map[string][]*targetgroup.Group) uint64 {
	h := fnv.New64a()
	var buf []byte
	for _, name := range slices.Sorted(maps.Keys(all)) {
		buf = append(buf[:0], name...)
		buf = append(buf, 0xff)
		gs := slices.Clone(all[name])
		slices.SortFunc(gs, func(a, b *targetgroup.Group) int {
			switch {
			case a == nil || b == nil:
				return boolInt(a == nil) - boolInt(b == nil)
			case a.Source < b.Source:
				return -1
			case a.Source > b.Source:
				return 1
			}
			return 0
		})
		for _, g := range gs {
			if g == nil {
				continue
			}
			buf = append(buf, g.Source...)
			buf = strconv.AppendUint(append(buf, 0xfe), uint64(g.Labels.Fingerprint()), 16)
			for _, t := range g.Targets {
				buf = strconv.AppendUint(append(buf, ','), uint64(model.LabelSet(t).Fingerprint()), 16)
			}
			buf = append(buf, 0xfd)
		}
		_, _ = h.Write(buf)
	}
	return h.Sum64() | 1
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// forgetEntries deletes the gauges of entries no longer in cfg.
func (f *Fleet) forgetEntries(cfg *config.Config) {
	keep := map[string]bool{}
	for _, td := range cfg.TargetDiscovery {
		keep[td.Name] = true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for name := range f.derived {
		if !keep[name] {
			f.metrics.discovered.DeleteLabelValues(name)
			for _, r := range dropReasons {
				f.metrics.dropped.DeleteLabelValues(name, r)
			}
			delete(f.derived, name)
		}
	}
	for name := range keep {
		f.derived[name] = true
	}
}
