package prober

var warmupLabels = labelsOf("outcome", WarmupOutcomes)

// familyWarmupProbes counts the probes that warm-up kept out of the SLO
// counters (warmup.go), by outcome; written at zero from the start.
var familyWarmupProbes = counters("llm_prober_warmup_probes_total",
	"Probes run in the warm-up after a target restart (warmup.probes, warmup.duration), kept out of probes_total, probes_good_total, probe_failures_total, slo_violations_total and the latency histograms, by outcome (good, slo_violation, failure).",
	warmupLabels, func(s *schedule) []float64 { return s.warmup[:] })

// recordWarmup adds a warm-up probe: its outcome and the last-probe
// gauges, nothing of the SLO, goodput, token or latency series. Called
// with s.mu held.
func (s *schedule) recordWarmup(r *Result, ts float64) {
	s.probed, s.lastProbeTime = true, ts
	switch warmupOutcome(r) {
	case WarmupGood:
		s.warmup[0]++
	case WarmupSLOViolation:
		s.warmup[1]++
	default:
		s.warmup[2]++
		s.lastSuccess = 0
		return
	}
	s.succeeded, s.lastSuccess, s.lastSuccessTime = true, 1, ts
}
