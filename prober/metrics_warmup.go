package prober

import "time"

var warmupLabels = labelsOf("outcome", WarmupOutcomes)

// familyWarmupProbes counts the probes of a warm-up (warmup.go), by
// outcome; written at zero from the start. They count in probes_total too.
var familyWarmupProbes = counters("llm_prober_warmup_probes_total",
	"Probes run in the warm-up after a target restart (warmup.probes, warmup.duration), by outcome (good, slo_violation, failure). They count in probes_total and probe_failures_total as any probe; a successful one counts as good and stays out of slo_violations_total and the latency histograms.",
	warmupLabels, func(s *schedule) []float64 { return s.warmup[:] })

// familyWarmupActive says whether a warm-up is open: the next probes'
// latencies may be kept out of the SLO series.
var familyWarmupActive = gauge("llm_prober_warmup_active",
	"1 while a warm-up after a target restart is open (probes and time left in warmup.probes and warmup.duration), else 0.",
	always, func(s *schedule) float64 {
		if !s.warmupUntil.IsZero() && time.Now().Before(s.warmupUntil) {
			return 1
		}
		return 0
	})

// recordWarmup counts a warm-up probe by outcome and keeps the warm-up's
// end. Called with s.mu held, for every probe.
func (s *schedule) recordWarmup(r *Result) {
	s.warmupUntil = r.WarmupUntil
	if r.Warmup == "" {
		return
	}
	switch warmupOutcome(r) {
	case WarmupGood:
		s.warmup[0]++
	case WarmupSLOViolation:
		s.warmup[1]++
	default:
		s.warmup[2]++
	}
}
