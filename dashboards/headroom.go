package dashboards

// headroom adds the live headroom against the knee measured by
// llm-prober bench (a target's capacity: block). Each prober computes the
// served rate from its own scrapes of the server: the panels keep the
// busiest view (max served, min headroom), as serverSum keeps one view.
func headroom(b *dashboardBuilder, p *panelIDs) *dashboardBuilder {
	return b.WithRow(p.row("Headroom against the measured knee")).
		WithPanel(p.ts("Served rate vs knee",
			"Requests the server finished per second over the target's rate_window, from its own counters (llm_prober_capacity_served_requests_per_second; counter resets counted as rate() does), against the knee llm-prober bench measured (capacity: in the prober's config, the rate completed within the SLOs). The knee holds only for the workload it was measured with: see the table below.",
			"reqps", 12, 8, tsOpts{min: zero},
			q{expr: e(`max by (target, model) (llm_prober_capacity_served_requests_per_second{SEL})`), legend: "served {{target}} {{model}}"},
			q{expr: e(`max by (target, model) (llm_prober_capacity_knee_requests_per_second{SEL})`), legend: "knee {{target}} {{model}}"}).
			NoValue("No target with a capacity: block, or under half a rate window of server scrapes")).
		WithPanel(p.ts("Headroom",
			"Share of the knee still free: 1 − served rate ÷ knee (llm_prober_capacity_headroom_ratio), negative past the knee, against the target's capacity.min_headroom_ratio: LLMProberCapacityHeadroomLow opens a ticket when the headroom stays below it for 30 minutes.",
			"percentunit", 6, 8, tsOpts{},
			q{expr: e(`min by (target, model) (llm_prober_capacity_headroom_ratio{SEL})`), legend: "headroom {{target}} {{model}}"},
			q{expr: e(`max by (target, model) (llm_prober_capacity_min_headroom_ratio{SEL})`), legend: "alert below {{target}} {{model}}"}).
			NoValue("No target with a capacity: block, or under half a rate window of server scrapes")).
		WithPanel(p.ts("Time to knee at the current trend",
			"When the served rate reaches the knee if it keeps its slope of the last hour (target_model:llm_prober_capacity_time_to_knee:seconds): 0 at or past the knee; empty while traffic is falling, or flat with noise (the fitted rise over the hour must be at least 3 standard deviations of the rate: noise alone passed for trends of days to years), and for the first 30 minutes of a target's history.",
			"s", 6, 8, tsOpts{min: zero},
			q{expr: e(`min by (target, model) (target_model:llm_prober_capacity_time_to_knee:seconds{SEL})`), legend: "{{target}} {{model}}"}).
			NoValue("No clear rising trend (flat, noisy or falling traffic never reaches the knee), under 30 minutes of history, or the recording rules are not loaded")).
		WithPanel(p.table("Knee origin",
			"Where each target's knee comes from (source: config for a number, file for a bench --sweep --output-json result) and the workload the sweep measured it with (llm_prober_capacity_knee_info). A knee holds only for its workload: re-measure when prompt or output lengths, prefix-cache hits or arrival burstiness change.",
			"none", 24, 5,
			q{expr: e(`max by (target, model, source, workload) (llm_prober_capacity_knee_info{SEL})`), instant: true, table: true}).
			NoValue("No target with a capacity: block (a knee from capacity.knee or a bench --sweep --output-json file) among the selected ones"))
}
