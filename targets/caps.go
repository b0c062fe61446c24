package targets

import (
	"github.com/go-kit/log/level"

	"github.com/llm-prober/llm-prober/config"
)

// MaxTargets caps the targets of all shards together, static ones first,
// then each target_discovery entry's in file order, each by name. One
// replica holds about 10,000 targets in 512 MiB; 100,000 discovered targets
// took 68 s to apply and 2 GB before this cap.
var MaxTargets = 50_000 // a var only so that tests can lower it

// LabelSetsPerTarget caps the discovered label sets one entry relabels at
// this many per target of its max_targets: a selector may find more than
// it keeps (a pod per container port), but 100,000 label sets cost about
// 145 MiB and a second to build. The rest (by group source) are dropped
// as limit.
const LabelSetsPerTarget = 5

// entryLimit is td's max_targets, or its default.
func entryLimit(td *config.TargetDiscovery) int {
	if td.MaxTargets > 0 {
		return td.MaxTargets
	}
	return config.DefaultDiscoveryMaxTargets
}

// noteLimit logs when the number of an entry's targets over its limit
// changes: discovery updates come every few seconds under churn.
func (f *Fleet) noteLimit(entry string, over, limit int) {
	f.mu.Lock()
	prev := f.limited[entry]
	f.limited[entry] = over
	f.mu.Unlock()
	switch {
	case over > 0 && over != prev:
		level.Warn(f.logger).Log("msg", "discovery found more targets than allowed; the last by name are dropped",
			"discovery", entry, "dropped", over, "max_targets", limit, "max_total", MaxTargets)
	case over == 0 && prev > 0:
		level.Info(f.logger).Log("msg", "discovery is within its target limits again", "discovery", entry)
	}
}
