package rules

// fromLocation names the prober's location in a description, when its
// series carry one: " in eu-west-1", else nothing.
const fromLocation = "{{ with $labels.location }} in {{ . }}{{ end }}"

func probeAlertGroup(c Config) Group {
	return Group{
		Comment: "Probe outcomes and the prober itself.",
		Name:    "llm-prober-probes",
		Rules: []Rule{
			{
				Alert: "LLMProberProbesFailing",
				Expr: c.expand(`
sum by (<TM>, module) (rate(llm_prober_probe_failures_total{SEL}[5m]))
/ sum by (<TM>, module) (rate(llm_prober_probes_total{SEL}[5m]))
> ` + failingRatio + `
` + targetPresent),
				For:    "5m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "Most synthetic probes of an LLM target are failing.",
					"description": "{{ $value | humanizePercentage }} of the {{ $labels.module }} probes of " +
						"{{ $labels.target }} (model {{ $labels.model }}, prober {{ $labels.instance }}" + fromLocation + ") failed over the last 5 minutes.",
					"runbook_url":   c.runbook("LLMProberProbesFailing"),
					"dashboard_url": c.dashboardURL(TargetDashboardUID, true),
				},
			},
			{
				Comment: "Only failures before the server answered count: a server that sends\n" +
					"headers and then queues the request (timeout_first_token) is overloaded,\nnot unreachable.",
				Alert: "LLMProberTargetUnreachable",
				Expr: c.expand(`
sum by (<TM>) (rate(llm_prober_probe_failures_total{SEL, reason=~"connect|dns|tls|timeout_connect|timeout_headers"}[5m]))
/ sum by (<TM>) (rate(llm_prober_probes_total{SEL}[5m]))
>= 0.5
` + targetPresent),
				For:    "5m",
				Labels: map[string]string{"severity": "critical"},
				Annotations: map[string]string{
					"summary": "An LLM inference target cannot be reached.",
					"description": "{{ $value | humanizePercentage }} of the probes of {{ $labels.target }} " +
						"(model {{ $labels.model }}, prober {{ $labels.instance }}" + fromLocation + ") failed with a DNS, connect or TLS error, " +
						"or timed out before the server sent response headers, over the last 5 minutes.",
					"runbook_url":   c.runbook("LLMProberTargetUnreachable"),
					"dashboard_url": c.dashboardURL(TargetDashboardUID, true),
				},
			},
			{
				Comment: "The age of the last probe at the last scrape of the last " + holdWindow + " (scrape time\n" +
					"minus the newest probe timestamp), so that a missed scrape does not restart\n" +
					"the for:, and a dead prober's probes do not age (LLMProberDown is about it).",
				Alert: "LLMProberNoProbeResults",
				Expr: c.expand(`
max_over_time(timestamp(llm_prober_last_probe_timestamp_seconds{SEL})[` + holdWindow + `:])
  - max_over_time(llm_prober_last_probe_timestamp_seconds{SEL}[` + holdWindow + `])
  > clamp_min(3 * max_over_time(llm_prober_probe_interval_seconds{SEL}[` + holdWindow + `]), 120)`),
				For:    "5m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "llm-prober has stopped finishing probes for a target.",
					"description": "The last {{ $labels.module }} probe of {{ $labels.target }} on {{ $labels.instance }}" + fromLocation + " " +
						"had finished {{ $value | humanizeDuration }} before the last scrape, more than three probe intervals.",
					"runbook_url":   c.runbook("LLMProberNoProbeResults"),
					"dashboard_url": c.dashboardURL(TargetDashboardUID, true),
				},
			},
			{
				Alert:  "LLMProberProbeResultsAbsent",
				Expr:   c.expand(`absent(llm_prober_last_probe_timestamp_seconds{SEL})`),
				For:    "10m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "No llm-prober probe results are stored in Prometheus.",
					"description": "No series llm_prober_last_probe_timestamp_seconds exists: no llm-prober is scraped, " +
						"or none has a target configured.",
					"runbook_url":   c.runbook("LLMProberProbeResultsAbsent"),
					"dashboard_url": c.GrafanaURL + "/d/" + SLODashboardUID,
				},
			},
			{
				Comment: "Only instances that exposed llm_prober_build_info in the last day: a\n" +
					"target of the same job that never was a prober does not page. The short\n" +
					"for: makes it fire before the dead prober's target alerts resolve\n" +
					"(holdWindow after its last scrape): no evaluation has neither.",
				Alert: "LLMProberDown",
				Expr: c.expand(`
up{SEL} == 0
and on (<JI>)
group by (<JI>) (last_over_time(llm_prober_build_info{SEL}[1d]))`),
				For:    proberDownFor,
				Labels: map[string]string{"severity": "critical"},
				Annotations: map[string]string{
					"summary": "An llm-prober instance cannot be scraped; its LLM targets are unmonitored.",
					"description": "Prometheus has failed to scrape llm-prober {{ $labels.instance }} (job {{ $labels.job }}) " +
						"for at least " + proberDownFor + ". Its target alerts resolve " + holdWindow + " after its last scrape for lack of data; " +
						"this alert stands for them (the Alertmanager example inhibits them by it).",
					"runbook_url":   c.runbook("LLMProberDown"),
					"dashboard_url": c.dashboardURL(SLODashboardUID, false),
				},
			},
			{
				Comment: "Failed at every scrape of the last " + holdWindow + ": one missed scrape does not\n" +
					"restart the for:, and a successful reload resolves it at once.",
				Alert:  "LLMProberConfigReloadFailed",
				Expr:   c.expand(`max by (<JI>) (max_over_time(llm_prober_config_last_reload_successful{SEL}[` + holdWindow + `])) == 0`),
				For:    "5m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "llm-prober failed to reload its configuration.",
					"description": "The last configuration reload of {{ $labels.instance }} (job {{ $labels.job }}) " +
						"failed; it keeps probing with the previous configuration.",
					"runbook_url":   c.runbook("LLMProberConfigReloadFailed"),
					"dashboard_url": c.dashboardURL(SLODashboardUID, false),
				},
			},
		},
	}
}
