package rules

// failingRatio is the failure ratio above which a location counts as
// failing a target: more than half of its probes failed, the comparison of
// LLMProberProbesFailing (> 0.5). That alert judges each module of each
// prober; a location is judged on all its probes of the target, every
// module and failure reason together. LLMProberTargetUnreachable differs:
// it counts only the failures before the server answered, and fires from
// 0.5 inclusive.
const failingRatio = "0.5"

// locationGroup records, per target, how it fares from each location and
// from how many locations it fails: a target failing from some locations
// while the others reach it is a fault of those locations' network path
// (DNS, egress, proxy, firewall, a peering link); one failing from every
// location is the server's (or of what every path shares: its load
// balancer, its DNS name). With one location there is nothing to compare.
func locationGroup(c Config) Group {
	return Group{
		Comment: "Locations: the same target probed from several locations (--probe.location),\n" +
			"to tell a network fault (failing from some locations) from a server fault\n" +
			"(failing from all). Aggregated over every prober of a location (shards) and\n" +
			"across clusters and jobs: a target is the same endpoint wherever it is probed\n" +
			"from when its name and model are the same. Without locations every target has\n" +
			"one \"location\" (the label is absent) and the counts are 1 and 0 or 1.",
		Name: "llm-prober-locations",
		Rules: []Rule{
			{Comment: "Share of the probes of a target from one location that failed (any reason).",
				Record: "target_location:llm_prober_probe_failures:ratio_rate5m", Expr: c.expand(`
(
  sum by (<LT>) (rate(llm_prober_probe_failures_total{SEL}[5m]))
  or
  0 * sum by (<LT>) (rate(llm_prober_probes_total{SEL}[5m]))
)
/ (sum by (<LT>) (rate(llm_prober_probes_total{SEL}[5m])) > 0)`)},
			{Comment: "Locations that probed the target over the last 5m.",
				Record: "target:llm_prober_probe_locations:count",
				Expr:   "count by (target, model) (target_location:llm_prober_probe_failures:ratio_rate5m)"},
			{Comment: "Locations from which more than " + failingRatio + " of its probes failed (any module,\n" +
				"any reason; LLMProberProbesFailing's comparison): 0 healthy;\n" +
				"between 0 and the location count, a network fault of those locations;\n" +
				"equal to a location count of 2 or more, a server fault.",
				Record: "target:llm_prober_probe_failing_locations:count", Expr: `
count by (target, model) (target_location:llm_prober_probe_failures:ratio_rate5m > ` + failingRatio + `)
or
0 * target:llm_prober_probe_locations:count`},
		},
	}
}
