package config

import (
	"time"

	"github.com/prometheus/common/model"
)

// Warmup keeps the first probes after a target restarts out of the SLO and
// goodput counters: a server's first requests after a start are slow
// (graph capture, cache allocation), and a deploy should not burn the
// error budget. The prober counts them apart, in
// llm_prober_warmup_probes_total.
//
// A warm-up opens at the first probe after a restart that the server
// answers, and ends after Probes probes or Duration after it opened,
// whichever comes first. Set globally; a target's warmup overrides the
// fields it sets.
type Warmup struct {
	// Probes is the most probes one warm-up keeps apart; 0 turns warm-up
	// off.
	Probes int `yaml:"probes"`
	// Duration is the longest a warm-up lasts, from its first probe.
	Duration model.Duration `yaml:"duration"`
}

// Warm-up defaults and bounds.
const (
	DefaultWarmupProbes   = 3
	DefaultWarmupDuration = 2 * time.Minute
	MaxWarmupProbes       = 100
)

// Enabled reports whether warm-up applies.
func (w Warmup) Enabled() bool { return w.Probes > 0 && w.Duration > 0 }

// warmup checks the warmup at path, filling the fields the file does not
// set from def (the global one for a target, the defaults for global).
func (c *checker) warmup(path string, w *Warmup, def Warmup) error {
	if !c.set(path + ".probes") {
		w.Probes = def.Probes
	} else if w.Probes < 0 || w.Probes > MaxWarmupProbes {
		return c.fail(path+".probes", "probes must be between 0 (off) and %d, got %d", MaxWarmupProbes, w.Probes)
	}
	return c.positive(&w.Duration, path+".duration", def.Duration)
}

// defaultWarmup is the warm-up when the file sets none.
var defaultWarmup = Warmup{Probes: DefaultWarmupProbes, Duration: model.Duration(DefaultWarmupDuration)}
