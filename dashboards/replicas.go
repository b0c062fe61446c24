package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/table"
)

// replicaColumns are the per-engine figures of the replica table, each an
// instant query by (target, engine) that the merge transformation joins
// into one row per engine.
var replicaColumns = []struct {
	name, unit, expr string
}{
	{"Running", "short", serverSum("target, engine", `llm_prober_server_requests_running{SEL}`)},
	{"Waiting", "short", serverSum("target, engine", `llm_prober_server_requests_waiting{SEL}`)},
	{"KV cache", "percentunit", `max by (target, engine) (llm_prober_server_kv_cache_usage_ratio{SEL})`},
	{"Req/s", "reqps", serverSum("target, engine", `rate(llm_prober_server_requests_finished_total{SEL}[$__rate_interval])`)},
	{"TTFT p95", "s", `histogram_quantile(0.95, sum by (le, target, engine) (rate(llm_prober_server_time_to_first_token_seconds_bucket{SEL}[$__rate_interval])))`},
	{"Preemptions/s", "ops", serverSum("target, engine", `rate(llm_prober_server_preemptions_total{SEL}[$__rate_interval])`)},
	// The process start time has no engine: spread it over the target's engines.
	{"Uptime", "s", `(time() - max by (target) (llm_prober_server_start_time_seconds{SEL}))
* on (target) group_right () (0 * max by (target, engine) (llm_prober_server_requests_running{SEL}) + 1)`},
}

// targetLink opens the target drill-down for the clicked row's target.
func targetLink() []dashboard.DynamicConfigValue {
	return []dashboard.DynamicConfigValue{{Id: "links", Value: []map[string]any{{
		"title": "Target drill-down: ${__value.raw}",
		"url":   "/d/llm-prober-target/llm-prober-target-drill-down?${__url_time_range}&${datasource:queryparam}&${cluster:queryparam}&${job:queryparam}&${location:queryparam}&${instance:queryparam}&${model:queryparam}&var-target=${__value.raw}",
	}}}}
}

func (p *panelIDs) replicaTable() *table.PanelBuilder {
	rename := map[string]any{"target": "Target", "engine": "Engine"}
	b := head(table.NewPanelBuilder(), p.id(), "Replicas", "One row per engine of each target (data-parallel engines are separate rows): requests running and waiting, KV-cache usage, finished requests per second, server-side TTFT p95, preemptions per second, and the server process's uptime (vLLM with a single API server and SGLang export process_start_time_seconds; otherwise the column is empty). Click a target to open its drill-down.", "short",
		"No server metrics for the selected targets: no server_metrics configured, or llm-prober's scrape of the server fails (see Server metrics scrape on the target drill-down)", 24, 8).
		Footer(common.NewTableFooterOptionsBuilder().Show(false).Reducer([]string{"sum"})).
		WithTransformation(dashboard.DataTransformerConfig{Id: "merge", Options: map[string]any{}}).
		WithTransformation(dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{
			"excludeByName": map[string]any{"Time": true},
			"renameByName":  rename,
		}}).
		OverrideByName("Target", targetLink())
	for i, c := range replicaColumns {
		ref := refID(i)
		rename["Value #"+ref] = c.name
		b = b.WithTarget(q{expr: e(c.expr), legend: c.name, instant: true, table: true}.build(ref)).
			OverrideByName(c.name, []dashboard.DynamicConfigValue{{Id: "unit", Value: c.unit}, {Id: "decimals", Value: 2}})
	}
	return b
}
