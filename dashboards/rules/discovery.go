package rules

import "strings"

// llmProber keeps a prometheus_sd_* series only on llm-prober instances:
// Prometheus servers export the same families for their own discovery,
// and the same Prometheus may scrape them.
const llmProber = `and on (<JI>)
group by (<JI>) (llm_prober_build_info{SEL})`

// sdWindow is how far back a discovery failure counts: refreshes come
// every 1m (http_sd) to 5m (file_sd) by default, and a watch that cannot
// reach the API server retries within seconds, so a discovery that keeps
// failing fails at least once in every window.
const sdWindow = "15m"

func discoveryAlertGroup(c Config) Group {
	dash := c.dashboardURL(SLODashboardUID, false)
	return Group{
		Comment: "Target discovery (target_discovery: file, http and kubernetes *_sd_configs, run by\n" +
			"Prometheus's discovery manager inside llm-prober). A failing discovery keeps its\n" +
			"last good targets, so nothing else alerts: new targets go unprobed and removed\n" +
			"ones are still probed.",
		Name: "llm-prober-discovery",
		Rules: []Rule{
			{
				Comment: "Failures in every " + sdWindow + " window for 20m: one transient failure (a file\n" +
					"caught half-written, one 500 from an http_sd endpoint, an API server\n" +
					"restart) counts for " + sdWindow + " and never fires. http_sd counts in\n" +
					"prometheus_sd_refresh_failures_total (with the entry as config) and in\n" +
					"prometheus_sd_http_failures_total: the first is read. A discoverer that\n" +
					"could not start at all (prometheus_sd_failed_configs) stays failed until\n" +
					"the next reload. A file_sd file over llm-prober's size cap is never read\n" +
					"(llm_prober_discovery_files_too_large, by entry): its last targets stay.",
				Alert: "LLMProberDiscoveryFailing",
				Expr: strings.ReplaceAll(c.expand(`
(
  sum by (<JI>, mechanism, config) (increase(prometheus_sd_refresh_failures_total{SEL}[W])) > 0
  or
  label_replace(sum by (<JI>) (increase(prometheus_sd_file_read_errors_total{SEL}[W])) > 0, "mechanism", "file", "", "")
  or
  label_replace(sum by (<JI>) (increase(prometheus_sd_kubernetes_failures_total{SEL}[W])) > 0, "mechanism", "kubernetes", "", "")
  or
  label_replace(max by (<JI>) (prometheus_sd_failed_configs{SEL}) > 0, "mechanism", "failed_config", "", "")
  or
  label_replace(max by (<JI>, config) (label_replace(llm_prober_discovery_files_too_large{SEL}, "config", "$1", "discovery", "(.*)")) > 0, "mechanism", "file_too_large", "", "")
)
`+llmProber), "[W]", "["+sdWindow+"]"),
				For:    "20m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "llm-prober's target discovery keeps failing; its target list is frozen.",
					"description": "Target discovery ({{ $labels.mechanism }}{{ with $labels.config }}, entry {{ . }}{{ end }}) " +
						"of llm-prober {{ $labels.instance }} (job {{ $labels.job }}) has failed throughout the last 20 minutes" +
						"{{ if eq $labels.mechanism \"failed_config\" }} (a discoverer could not start; it stays failed until a reload){{ end }}" +
						"{{ if eq $labels.mechanism \"file_too_large\" }} (a file_sd file is over the 4 MiB cap and is not read){{ end }}. " +
						"It keeps probing the last targets it found: new ones are not probed, removed ones still are.",
					"runbook_url":   c.runbook("LLMProberDiscoveryFailing"),
					"dashboard_url": dash,
				},
			},
			{
				Comment: "The entry finds label sets but builds no target from them: all invalid\n" +
					"(no model, a bad URL or labels; duplicates and relabel drops are on\n" +
					"purpose). Every shard derives the same list, so every replica fires.",
				Alert: "LLMProberDiscoveredTargetsInvalid",
				Expr: c.expand(`
max by (<JI>, discovery) (llm_prober_discovery_dropped_targets{SEL, reason="invalid"}) > 0
and on (<JI>, discovery)
max by (<JI>, discovery) (llm_prober_discovery_targets{SEL}) == 0`),
				For:    "10m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "Every target a target_discovery entry finds is invalid; it probes none of them.",
					"description": "The target_discovery entry {{ $labels.discovery }} of llm-prober {{ $labels.instance }} " +
						"(job {{ $labels.job }}) found {{ $value }} label sets and built no target from them: each lacks a model, " +
						"or has a bad URL or labels. The prober logs why (\"discovered target is invalid\").",
					"runbook_url":   c.runbook("LLMProberDiscoveredTargetsInvalid"),
					"dashboard_url": dash,
				},
			},
			{
				Comment: "The entry found more targets than its max_targets, or all entries more than\n" +
					"the total cap: the last by name go unprobed. Every replica derives the same\n" +
					"list, so every replica fires.",
				Alert: "LLMProberDiscoveredTargetsLimited",
				Expr: c.expand(`
max by (<JI>, discovery) (llm_prober_discovery_dropped_targets{SEL, reason="limit"}) > 0`),
				For:    "10m",
				Labels: map[string]string{"severity": "warning"},
				Annotations: map[string]string{
					"summary": "A target_discovery entry found more targets than its cap; the rest are not probed.",
					"description": "The target_discovery entry {{ $labels.discovery }} of llm-prober {{ $labels.instance }} " +
						"(job {{ $labels.job }}) dropped {{ $value }} discovered targets, the last by name, over its max_targets " +
						"or the total cap: they are not probed.",
					"runbook_url":   c.runbook("LLMProberDiscoveredTargetsLimited"),
					"dashboard_url": dash,
				},
			},
		},
	}
}
