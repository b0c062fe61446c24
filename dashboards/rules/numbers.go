package rules

import (
	"strings"
)

// Numbers in the alert texts (issue 33): each helper queries, when the
// notification is rendered, series of the alert's own prober and target,
// matched on its labels, and writes nothing when they are absent.

// matchers is a printf format of label matchers on the alert's labels
// (names), its cluster label first, and the template arguments for it.
func (c Config) matchers(names ...string) (format, args string) {
	if c.ClusterLabel != "" {
		names = append([]string{c.ClusterLabel}, names...)
	}
	var ms, as []string
	for _, n := range names {
		ms = append(ms, n+"=%q")
		as = append(as, "$labels."+n)
	}
	return strings.Join(ms, ", "), strings.Join(as, " ")
}

// queried renders text when expr returns a sample, with {{ $v }} the
// first sample's value. In expr, {M} stands for the matchers on names.
func (c Config) queried(expr, text string, names ...string) string {
	m, args := c.matchers(names...)
	return `{{ with query (printf "` + strings.ReplaceAll(expr, "{M}", "{"+m+"}") + `" ` + args + `) }}` +
		`{{ $v := . | first | value }}` + text + `{{ end }}`
}

// serverNow states the server's queue and KV cache as the alert's prober
// scrapes them now: the first page of a saturated target names its cause,
// 15 minutes before the capacity alerts can (issue 33: 19m26s).
func (c Config) serverNow() string {
	return c.queried(`sum(llm_prober_server_requests_waiting{M})`,
		` The server now (as {{ $labels.instance }} scrapes it): {{ $v | humanize }} requests waiting.`, "job", "instance", "target", "model") +
		c.queried(`max(llm_prober_server_kv_cache_usage_ratio{M})`,
			` KV cache now: {{ $v | humanizePercentage }} used.`, "job", "instance", "target", "model")
}

// preemptionsNow states the server's preemption rate over the last 5m,
// the first suspect of a stall: a preempted request waits mid-answer for
// its recompute.
func (c Config) preemptionsNow() string {
	return c.queried(`60 * sum(rate(llm_prober_server_preemptions_total{M}[5m]))`,
		` Server preemptions over the last 5m: {{ $v | humanize }} a minute (a preempted request stalls mid-answer while it is recomputed).`,
		"job", "instance", "target", "model")
}

// perModule lists a query's samples as "module value, ...".
const perModule = `{{ range $i, $s := . }}{{ if $i }}, {{ end }}{{ $s.Labels.module }} {{ $s.Value | humanizeDuration }}{{ end }}`

// latencyNumbers gives a latency burn alert's threshold and the p90 of
// the successful probes over its short window, per module.
func (c Config) latencyNumbers(short string) string {
	m, args := c.matchers("job", "instance", "target", "model", "location")
	metric := `{{ $h := "llm_prober_e2e_latency_seconds" }}` +
		`{{ if eq $labels.slo "ttft" }}{{ $h = "llm_prober_time_to_first_token_seconds" }}` +
		`{{ else if eq $labels.slo "tpot" }}{{ $h = "llm_prober_time_per_output_token_seconds" }}` +
		`{{ else if eq $labels.slo "max_itl" }}{{ $h = "llm_prober_max_inter_token_latency_seconds" }}{{ end }}`
	thresholds := `{{ with query (printf "max by (module) (llm_prober_slo_seconds{` + m + `, slo=%q})" ` + args + ` $labels.slo) }}` +
		` Threshold: ` + perModule + `.{{ end }}`
	p90 := `{{ with query (printf "histogram_quantile(0.9, sum by (module) (rate(%s{` + m + `}[` + short + `]))) or histogram_quantile(0.9, sum by (le, module) (rate(%s_bucket{` + m + `}[` + short + `])))" ` +
		`$h ` + args + ` $h ` + args + `) }}` +
		` Observed p90 of the successful probes over the last ` + short + `: ` + perModule + `.{{ end }}`
	return metric + thresholds + p90
}
