package rules

// Live headroom against the measured knee (a target's capacity: block).
// The prober exports the knee, the served request rate over the target's
// rate window (from the server's own counters, resets handled) and the
// headroom; the rules add the trend and the alert.

// Windows of the time-to-knee trend: the slope of the served rate over
// trendWindow, kept only for series at least trendHistory old (a slope of
// a few minutes would pass for the hour's).
const (
	trendWindow  = "1h"
	trendHistory = "30m"
)

// trendSignificant keeps a slope only where the fitted line explains at
// least 3/4 of the served rate's variance over trendWindow (R² ≥ 0.75):
// its rise over the hour, deriv × 3600, is at least 3 standard deviations
// of the rate (a line rising R over T has a standard deviation of R/√12).
// Flat traffic's noise tilts the fit up half the time (issue 33: 37 of 88
// evaluations gave 2.9 days to 5.1 years); its R² stays near 1/n.
const trendSignificant = `deriv(llm_prober_capacity_served_requests_per_second{SEL}[` + trendWindow + `]) * 3600
  > on (<TS>)
  3 * stddev_over_time(llm_prober_capacity_served_requests_per_second{SEL}[` + trendWindow + `])`

func capacityRecordingGroup(c Config) Group {
	return Group{
		Comment: "Capacity against the knee measured by llm-prober bench (capacity: in the\n" +
			"prober's config); the knee holds only for the workload it was measured with\n" +
			"(llm_prober_capacity_knee_info).",
		Name: "llm-prober-capacity",
		Rules: []Rule{{
			Comment: "Seconds until the served request rate reaches the knee at its trend over\n" +
				"the last " + trendWindow + " (linear regression). 0 at or past the knee. None while the\n" +
				"rate is falling, or flat with noise: the fitted rise over the hour must be at\n" +
				"least 3 standard deviations of the rate (R² ≥ 0.75), or noise passes for a\n" +
				"trend of days to years. None for series younger than " + trendHistory + ".",
			Record: "target_model:llm_prober_capacity_time_to_knee:seconds",
			Expr: c.expand(`
clamp_min(
  (
    llm_prober_capacity_knee_requests_per_second{SEL}
    - on (<TS>)
    llm_prober_capacity_served_requests_per_second{SEL}
  )
  / on (<TS>)
  (deriv(llm_prober_capacity_served_requests_per_second{SEL}[` + trendWindow + `]) > 0)
  and on (<TS>)
  (
  ` + indent(trendSignificant) + `
  )
  and on (<TS>)
  llm_prober_capacity_served_requests_per_second{SEL} offset ` + trendHistory + `
  or on (<TS>)
  0 * (llm_prober_capacity_headroom_ratio{SEL} <= 0),
  0
)`),
		}},
	}
}

func capacityAlertGroup(c Config) Group {
	return Group{
		Comment: "Headroom against the knee measured by llm-prober bench.",
		Name:    "llm-prober-capacity",
		Rules:   []Rule{capacityAlertRule(c)},
	}
}

func capacityAlertRule(c Config) Rule {
	return Rule{
		Comment: "A ticket, not a page: the server still holds its SLOs below the knee, but\n" +
			"the next traffic step may not. Below the target's min_headroom_ratio at every\n" +
			"sample of 10m and for 20m (30 minutes in all), and only for series that\n" +
			"existed 10m ago; a gap of a couple of scrapes does not restart it. Kept only\n" +
			"while the prober scrapes the server, as the other capacity alerts.",
		Alert: "LLMProberCapacityHeadroomLow",
		Expr: c.expand(`
max_over_time(llm_prober_capacity_headroom_ratio{SEL}[10m])
< on (<TS>)
llm_prober_capacity_min_headroom_ratio{SEL}
and on (<TS>)
` + youngGuard("llm_prober_capacity_headroom_ratio", "10m") + "\n" + serverScrapeOK),
		For:    "20m",
		Labels: map[string]string{"severity": "warning"},
		Annotations: map[string]string{
			"summary": "An inference server has been serving close to its measured knee for 30 minutes.",
			"description": "{{ $labels.target }} (model {{ $labels.model }}) has had less of its knee free than its " +
				"capacity.min_headroom_ratio at every sample for 30 minutes (the highest headroom of 10 minutes under it for 20 minutes); " +
				"at most {{ $value | humanizePercentage }} free over the last 10 minutes." +
				c.queried(`max(llm_prober_capacity_served_requests_per_second{M})`, ` Served now: {{ $v | humanize }} req/s.`, "job", "instance", "target", "model") +
				c.queried(`max(llm_prober_capacity_knee_requests_per_second{M})`, ` Knee: {{ $v | humanize }} req/s.`, "job", "instance", "target", "model") +
				" The knee holds for the workload it was measured with (llm_prober_capacity_knee_info): add replicas, or re-measure if the workload changed.",
			"runbook_url":   c.runbook("LLMProberCapacityHeadroomLow"),
			"dashboard_url": c.dashboardURL(CapacityDashboardUID, true),
		},
	}
}
