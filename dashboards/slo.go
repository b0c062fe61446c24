package dashboards

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/llm-prober/llm-prober/dashboards/rules"
)

// e substitutes the standard selectors into an expression: SEL for the
// job/instance/target/model matchers, JI for job/instance only.
func e(expr string) string {
	expr = strings.ReplaceAll(expr, "SEL", sel)
	return strings.ReplaceAll(expr, "JI", selJI)
}

// goodRatio is good/total over a window for the selected probes, per
// location: two locations are never summed into one ratio.
func goodRatio(window string) string {
	return e(`sum by (location, target, model) (increase(llm_prober_probes_good_total{SEL}[` + window + `]))
/ sum by (location, target, model) (increase(llm_prober_probes_total{SEL}[` + window + `]))`)
}

// recorded selects a recording rule's series for the dashboard selection.
func recorded(name, extra string) string {
	return name + "{" + sel + extra + "}"
}

// burnRate is the recorded goodput error ratio over a window divided by
// the recorded error budget: the numbers the burn-rate alerts compare.
func burnRate(window string) string {
	return recorded("target_model:llm_prober_slo_errors:ratio_rate"+window, `, slo="goodput"`) +
		"\n/ on (slo) group_left () llm_prober:slo_error_budget:ratio"
}

func sloOverview(c rules.Config) *dashboardBuilder {
	p := &panelIDs{}
	period := c.Period()
	var pages []string
	for _, w := range rules.BurnWindows {
		if w.Severity == "critical" {
			pages = append(pages, fmt.Sprintf("%s over %s and %s", strconv.FormatFloat(math.Round(w.Factor(c.PeriodDays)*100)/100, 'f', -1, 64), w.Long, w.Short))
		}
	}
	b := base("llm-prober-slo", "llm-prober / SLO overview",
		"Synthetic-probe service levels of LLM inference endpoints: SLO attainment, error budget, client-side latency percentiles, failures, and the SLO attainment of all the server's requests.", "slo").
		WithRow(p.row("Probers")).
		WithPanel(p.proberStat(24, 3)).
		WithRow(p.row("SLO attainment and error budget")).
		WithPanel(p.stat("SLO attainment (time range)",
			"Fraction of probes in the dashboard time range that succeeded and met every configured latency SLO (llm_prober_probes_good_total / llm_prober_probes_total).",
			"percentunit", 6, 6, common.BigValueTextModeValueAndName, nil,
			thresholds("red", 0.95, "orange", 0.99, "green"),
			q{expr: goodRatio("$__range"), legend: "{{target}} {{model}} {{location}}", instant: true})).
		WithPanel(p.stat("Error budget remaining ("+period+", history present)",
			"Share of the SLO attainment error budget of the "+period+" SLO period left, charging only the history Prometheus holds (target_model:llm_prober_slo_period_error_budget_remaining:ratio; the objective and period are those of alerts/llm-prober-rules.yml): the mean error ratio over that history times its share of the period. A new target, or a retention shorter than the period (Prometheus's default is 15d), holds less: the missing days are not charged, never read as errors, and the \"history\" tiles say how much the number covers. Negative means the SLO is already missed for this period. One tile per target, model, prober (instance) and location.",
			"percentunit", 6, 6, common.BigValueTextModeValueAndName, nil,
			thresholds("red", 0.0, "orange", 0.25, "green"),
			q{expr: recorded("target_model:llm_prober_slo_period_error_budget_remaining:ratio", `, slo="goodput"`), legend: "{{target}} {{model}} {{instance}} {{location}}", instant: true},
			q{expr: recorded("target_model:llm_prober_slo_period_history:seconds", `, slo="goodput"`), legend: "history {{target}} {{model}} {{instance}} {{location}}", instant: true}).
			OverrideByQuery("B", []dashboard.DynamicConfigValue{{Id: "unit", Value: "dtdurations"}, {Id: "color", Value: map[string]any{"mode": "fixed", "fixedColor": "text"}}}).
			NoValue("No SLO history yet: the period series start 5 minutes after the first recorded 5m error ratio (alerts/llm-prober-rules.yml must be loaded)")).
		WithPanel(p.ts("SLO attainment ratio",
			"Fraction of probes that succeeded and met every configured SLO, per target, model and location (where the probers run). Compare with the SLO objective variable.",
			"percentunit", 12, 6, tsOpts{max: one},
			q{expr: e(`sum by (location, target, model) (rate(llm_prober_probes_good_total{SEL}[$__rate_interval]))
/ sum by (location, target, model) (rate(llm_prober_probes_total{SEL}[$__rate_interval]))`), legend: "{{target}} {{model}} {{location}}"})).
		WithPanel(p.ts("SLO attainment burn rate",
			"How many times faster than sustainable the SLO attainment error budget is being spent, from the recorded error ratios the alerts use (1 = exactly on budget for the "+period+" period; pages fire at "+strings.Join(pages, ", and at ")+"). The "+period+" line is the period's burn rate.",
			"suffix:×", 12, 7, tsOpts{min: zero},
			q{expr: burnRate("5m"), legend: "5m {{target}} {{model}} {{location}}"},
			q{expr: burnRate("1h"), legend: "1h {{target}} {{model}} {{location}}"},
			q{expr: burnRate("6h"), legend: "6h {{target}} {{model}} {{location}}"},
			q{expr: recorded("target_model:llm_prober_slo_period_burn_rate:ratio", `, slo="goodput"`), legend: period + " {{target}} {{model}} {{location}}"})).
		WithPanel(p.ts("Error ratio by SLO",
			"Fraction of probes that failed (availability), and per latency SLO (ttft, tpot, e2el, max_itl) the fraction of the probes of modules with that SLO that missed it: succeeded over the threshold, or timed out after waiting past it (before the first token: ttft and e2el; while decoding: e2el, and max_itl when the gap left open passed it).",
			"percentunit", 12, 7, tsOpts{min: zero},
			q{expr: e(`sum by (location, target, model) (rate(llm_prober_probe_failures_total{SEL}[$__rate_interval]))
/ sum by (location, target, model) (rate(llm_prober_probes_total{SEL}[$__rate_interval]))`), legend: "availability {{target}} {{model}} {{location}}"},
			q{expr: e(`sum by (location, target, model, slo) (rate(llm_prober_slo_violations_total{SEL}[$__rate_interval]))
/ sum by (location, target, model, slo) (
  rate(llm_prober_probes_total{SEL}[$__rate_interval])
  * on (job, instance, location, target, model, module) group_right () (0 * (llm_prober_slo_seconds{SEL} > 0) + 1)
)`), legend: "{{slo}} {{target}} {{model}} {{location}}"})).
		WithPanel(p.ts("Error budget remaining by SLO ("+period+")",
			"Share of each SLO's error budget left over the "+period+" period (target_model:llm_prober_slo_period_error_budget_remaining:ratio): SLO attainment (slo=\"goodput\"), availability and each configured latency SLO. Like the stat above it charges only the history Prometheus holds, never the missing days.",
			"percentunit", 24, 7, tsOpts{max: one},
			q{expr: recorded("target_model:llm_prober_slo_period_error_budget_remaining:ratio", ""), legend: "{{slo}} {{target}} {{model}} {{location}}"}))
	return serverTraffic(b, p).
		WithRow(p.row("Client-side latency (synthetic probes)")).
		WithPanel(p.ts("Time to first token",
			"Probe TTFT percentiles (request sent until the first chunk with generated content), from llm_prober_time_to_first_token_seconds. Exemplars carry the probe_id."+successOnly,
			"s", 12, 8, tsOpts{min: zero},
			append(quantiles("llm_prober_time_to_first_token_seconds", "target, model", true),
				q{expr: e(`max by (target, model) (llm_prober_slo_seconds{SEL, slo="ttft"})`), legend: "SLO {{target}} {{model}}"})...).
			OverrideByRegexp("^SLO ", sloLineStyle)).
		WithPanel(p.ts("Time per output token",
			"Probe TPOT percentiles, (E2E latency - TTFT) / (output tokens - 1), from llm_prober_time_per_output_token_seconds."+successOnly,
			"s", 12, 8, tsOpts{min: zero},
			append(quantiles("llm_prober_time_per_output_token_seconds", "target, model", true),
				q{expr: e(`max by (target, model) (llm_prober_slo_seconds{SEL, slo="tpot"})`), legend: "SLO {{target}} {{model}}"})...).
			OverrideByRegexp("^SLO ", sloLineStyle)).
		WithPanel(p.ts("Inter-token latency",
			"Percentiles of the gaps between consecutive tokens of the probes' streams (llm_prober_inter_token_latency_seconds)."+successOnly,
			"s", 12, 8, tsOpts{min: zero},
			quantiles("llm_prober_inter_token_latency_seconds", "target, model", true)...).
			NoValue(noSuccess)).
		WithPanel(p.ts("End-to-end latency",
			"Probe end-to-end latency percentiles, request sent until the end of the stream (llm_prober_e2e_latency_seconds)."+successOnly,
			"s", 12, 8, tsOpts{min: zero},
			append(quantiles("llm_prober_e2e_latency_seconds", "target, model", true),
				q{expr: e(`max by (target, model) (llm_prober_slo_seconds{SEL, slo="e2el"})`), legend: "SLO {{target}} {{model}}"})...).
			OverrideByRegexp("^SLO ", sloLineStyle)).
		WithPanel(p.ts("Worst gap between tokens (max_itl), per target",
			"Distribution over the probes of each one's longest gap between two content chunks (llm_prober_max_inter_token_latency_seconds): a mid-answer stall (preemption, a long prefill batched in, a buffering proxy) that the mean of TPOT hides. p99 over the dashed max_itl SLO line means more than 1 % of the probes froze longer than allowed. Exemplars carry the probe_id of a stalled probe."+successOnly,
			"s", 24, 8, tsOpts{min: zero},
			append(quantiles("llm_prober_max_inter_token_latency_seconds", "target, model", true),
				q{expr: e(`max by (target, model) (llm_prober_slo_seconds{SEL, slo="max_itl"})`), legend: "SLO {{target}} {{model}}"})...).
			OverrideByRegexp("^SLO ", sloLineStyle).
			NoValue(noSuccess)).
		WithRow(p.row("Failures and probe volume")).
		WithPanel(p.ts("Failures by reason",
			"Failed probes per second by reason (dns, connect, tls, timeout_* by phase, http_4xx, rate_limited, http_5xx, stream errors, validation, ...). Reasons with no failure in the dashboard range are hidden.",
			"reqps", 12, 8, tsOpts{min: zero, stacked: true},
			q{expr: nonZero(`sum by (location, target, model, reason) (rate(llm_prober_probe_failures_total{SEL}[$__rate_interval]))`, "llm_prober_probe_failures_total", "location, target, model, reason"), legend: "{{reason}} {{target}} {{model}} {{location}}"}).
			NoValue(noFailure)).
		WithPanel(p.ts("SLO violations",
			"Probes per second that missed a configured latency SLO, by SLO: successful ones over the threshold, and ones that timed out after waiting past it (the latency panels above show successful probes only).",
			"reqps", 12, 8, tsOpts{min: zero, stacked: true},
			q{expr: e(`sum by (location, target, model, slo) (rate(llm_prober_slo_violations_total{SEL}[$__rate_interval]))`), legend: "{{slo}} {{target}} {{model}} {{location}}"})).
		WithPanel(p.ts("Probe volume",
			"Finished probes per second and good probes per second, both per target, model and location (good can never exceed all). Low volume makes the SLO ratios noisy.",
			"reqps", 12, 8, tsOpts{min: zero},
			q{expr: e(`sum by (location, target, model) (rate(llm_prober_probes_total{SEL}[$__rate_interval]))`), legend: "all {{target}} {{model}} {{location}}"},
			q{expr: e(`sum by (location, target, model) (rate(llm_prober_probes_good_total{SEL}[$__rate_interval]))`), legend: "good {{target}} {{model}} {{location}}"})).
		WithPanel(p.ts("Probes in flight",
			"Probes currently running in each llm-prober process (llm_prober_probes_in_flight).",
			"short", 12, 8, tsOpts{min: zero},
			q{expr: e(`sum by (instance) (llm_prober_probes_in_flight{JI})`), legend: "{{instance}}"})).
		WithPanel(p.ts("Failure ratio by location",
			"Share of the probes of each target that failed, per location the probers run in (--probe.location). The same target failing from one location while the others reach it is a fault of that location's path (DNS, egress, proxy, a peering link); failing from every location at once, of the server or what every path shares. The recording rules target:llm_prober_probe_failing_locations:count and target:llm_prober_probe_locations:count count the locations where more than 50 % failed (docs/alerting.md). One line per target when no prober sets a location.",
			"percentunit", 24, 8, tsOpts{min: zero, max: one},
			q{expr: e(`(
  sum by (location, target, model) (rate(llm_prober_probe_failures_total{SEL}[$__rate_interval]))
  or
  0 * sum by (location, target, model) (rate(llm_prober_probes_total{SEL}[$__rate_interval]))
)
/ sum by (location, target, model) (rate(llm_prober_probes_total{SEL}[$__rate_interval]))`), legend: "{{location}} {{target}} {{model}}"}))
}

// successOnly says why a latency panel can be empty (or show its SLO line
// alone) while probes run: the histograms observe successful probes only.
const successOnly = " Successful probes only: a target whose probes all fail or time out has no line here; its timeouts count as TTFT/E2EL SLO violations in \"Error ratio by SLO\" and its failures in \"Failures by reason\"."

// noFailure is the text of a failure panel without a failed probe.
const noFailure = "No failed probe in the time range"

// noSuccess is the text of a latency panel without a successful probe.
const noSuccess = "No successful probe in the time range (timeouts and failures: see Error ratio by SLO and Failures by reason)"

// sloLineStyle draws the configured SLO threshold series as a dashed line.
var sloLineStyle = []dashboard.DynamicConfigValue{
	{Id: "custom.lineStyle", Value: map[string]any{"fill": "dash", "dash": []int{10, 10}}},
	{Id: "custom.fillOpacity", Value: 0},
	{Id: "color", Value: map[string]any{"mode": "fixed", "fixedColor": "red"}},
}
