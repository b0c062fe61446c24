package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// fnum drops float noise (13.440000000000001 -> 13.44).
func fnum(f float64) string { return strconv.FormatFloat(f, 'g', 10, 64) }

// factorText is a burn factor for people: 13.44, 5.6, 0.93.
func factorText(f float64) string { return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64) }

func sloConfigGroup(c Config) Group {
	g := Group{
		Comment: "SLO configuration: objectives, error budgets, period and the minimum-probe guard.\n" +
			"Edit the objectives here (or regenerate with -objective); everything else reads them.",
		Name: "llm-prober-slo-config",
	}
	for i, slo := range SLOs {
		r := Rule{Record: "llm_prober:slo_objective:ratio", Expr: "vector(" + fnum(c.Objective) + ")", Labels: map[string]string{"slo": slo}}
		if i == 0 {
			r.Comment = "Objective per SLO (fraction of probes that must be good).\n" +
				"goodput: succeeded AND met every configured latency SLO.\n" +
				"availability: did not fail (any llm_prober_probe_failures_total reason).\n" +
				"ttft|tpot|e2el|max_itl: did not violate that latency SLO (max_itl: the longest\n" +
				"gap between two content chunks of a probe, a mid-answer stall)."
		}
		g.Rules = append(g.Rules, r)
	}
	g.Rules = append(g.Rules,
		Rule{Comment: "Error budget: the fraction of probes allowed to be bad (Sloth's slo:error_budget:ratio).",
			Record: "llm_prober:slo_error_budget:ratio", Expr: "1 - llm_prober:slo_objective:ratio"},
		Rule{Comment: "The SLO period (compliance window) the burn factors and the period series use.",
			Record: "llm_prober:slo_period:days", Expr: fmt.Sprintf("vector(%d)", c.PeriodDays)},
		Rule{Comment: "Burn-rate alerts need at least this many probes in their long window\n" +
			"(at one probe per 15s a 1h window holds 240): one bad probe of a sparse\nprober must not page.",
			Record: "llm_prober:slo_min_probes:count", Expr: fmt.Sprintf("vector(%d)", c.MinProbes)},
	)
	return g
}

func sliGroup(c Config) Group {
	g := Group{
		Comment: "SLI error ratios, one series per (cluster, job, instance, target, model, slo)\n" +
			"and window. The latency SLIs count llm_prober_slo_violations_total (successful\n" +
			"probes that missed that SLO, and probes that timed out after waiting past it:\n" +
			"ttft and e2el before the first token, e2el and max_itl while decoding) over the\n" +
			"probes of the modules that configure that SLO (llm_prober_slo_seconds); other\n" +
			"failures count against availability and goodput only. instance (the prober) is\n" +
			"kept so that the alerts carry it: LLMProberDown inhibits them by instance.\n" +
			"The SLO thresholds are read over " + holdWindow + " so that a missed scrape does not drop\n" +
			"the latency SLIs (and reset the alerts' for: timers) for a step.\n" +
			"A window without probes records nothing rather than NaN (0/0), which would\n" +
			"poison the period average for 28 days.",
		Name: "llm-prober-slo-sli",
	}
	for _, w := range SLIWindows {
		name := "target_model:llm_prober_slo_errors:ratio_rate" + w
		g.Rules = append(g.Rules,
			Rule{Record: name, Labels: map[string]string{"slo": "goodput"}, Expr: c.expand(`
1 - (
  sum by (<TM>) (rate(llm_prober_probes_good_total{SEL}[W]))
  or
  0 * sum by (<TM>) (rate(llm_prober_probes_total{SEL}[W]))
)
/ (sum by (<TM>) (rate(llm_prober_probes_total{SEL}[W])) > 0)`)},
			Rule{Record: name, Labels: map[string]string{"slo": "availability"}, Expr: c.expand(`
(
  sum by (<TM>) (rate(llm_prober_probe_failures_total{SEL}[W]))
  or
  0 * sum by (<TM>) (rate(llm_prober_probes_total{SEL}[W]))
)
/ (sum by (<TM>) (rate(llm_prober_probes_total{SEL}[W])) > 0)`)},
			Rule{Record: name, Expr: c.expand(`
(
  sum by (<TM>, slo) (rate(llm_prober_slo_violations_total{SEL}[W]))
  or
  0 * group by (<TM>, slo) (last_over_time(llm_prober_slo_seconds{SEL}[` + holdWindow + `]) > 0)
)
/
(
  sum by (<TM>, slo) (
    rate(llm_prober_probes_total{SEL}[W])
    * on (<TM>, module) group_right ()
    (0 * (last_over_time(llm_prober_slo_seconds{SEL}[` + holdWindow + `]) > 0) + 1)
  ) > 0
)`)},
			Rule{Record: "target_model:llm_prober_probes:increase" + w,
				Expr: c.expand(`sum by (<TM>) (increase(llm_prober_probes_total{SEL}[W]))`)},
		)
	}
	for i := range g.Rules {
		w := strings.TrimPrefix(g.Rules[i].Record, "target_model:llm_prober_slo_errors:ratio_rate")
		if strings.HasPrefix(g.Rules[i].Record, "target_model:llm_prober_probes:increase") {
			w = strings.TrimPrefix(g.Rules[i].Record, "target_model:llm_prober_probes:increase")
		}
		g.Rules[i].Expr = strings.ReplaceAll(g.Rules[i].Expr, "[W]", "["+w+"]")
	}
	return g
}

// sloPeriodGroup records Sloth-style reporting series over the SLO period,
// which the SLO dashboard reads, so that it and the alerts agree.
func sloPeriodGroup(c Config) Group {
	p := c.Period()
	return Group{
		Comment: "SLO reporting over the period (" + p + "), like Sloth's slo:sli_error:ratio_rate30d,\n" +
			"slo:period_burn_rate:ratio and slo:period_error_budget_remaining:ratio.\n" +
			"The period error ratio averages the recorded 5m ratio (as Sloth does), so\n" +
			"it reads the recorded series, not " + p + " of raw samples.",
		Name: "llm-prober-slo-period",
		Rules: []Rule{
			{Record: "target_model:llm_prober_slo_errors:ratio_rate" + p,
				Expr: "avg_over_time(target_model:llm_prober_slo_errors:ratio_rate5m[" + p + "])"},
			{Comment: "Budget spent over the period, as a multiple of the whole budget (1 = all of it).",
				Record: "target_model:llm_prober_slo_period_burn_rate:ratio",
				Expr: "target_model:llm_prober_slo_errors:ratio_rate" + p + "\n" +
					"/ on (slo) group_left () llm_prober:slo_error_budget:ratio"},
			{Comment: "How much of the period the average above covers: from the oldest 5m ratio\n" +
				"present (the series' age, or Prometheus's retention when shorter than the\n" +
				"period) to now. Found at 10m steps over the period and at 1m steps over the\n" +
				"last hour (a young series): short by up to 10m, never long.",
				Record: "target_model:llm_prober_slo_period_history:seconds",
				Expr: strings.NewReplacer("OLD", "min_over_time(timestamp(target_model:llm_prober_slo_errors:ratio_rate5m)["+p+":10m])",
					"NEW", "min_over_time(timestamp(target_model:llm_prober_slo_errors:ratio_rate5m)[1h:1m])").Replace(
					"time() - (\n  (NEW < OLD)\n  or OLD\n  or NEW\n)")},
			{Comment: "Share of the period's error budget left, charging only the history present:\n" +
				"the mean error ratio over it times its share of the period, over the budget.\n" +
				"With a full period this is Sloth's 1 - burn rate; with less (a new target, a\n" +
				"short retention) the missing history is never charged as errors, so the value\n" +
				"is never below what the data supports. Negative: the SLO is missed.",
				Record: "target_model:llm_prober_slo_period_error_budget_remaining:ratio",
				Expr: "1 - target_model:llm_prober_slo_period_burn_rate:ratio\n" +
					fmt.Sprintf("  * clamp_max(target_model:llm_prober_slo_period_history:seconds / %d, 1)", c.PeriodDays*86400)},
		},
	}
}

// burnAlert describes one of the three SLO burn-rate alerts.
type burnAlert struct {
	name, sloMatch, summary, anchor string
}

var burnAlerts = []burnAlert{
	{"LLMProberGoodputBudgetBurn", `slo="goodput"`, "SLO attainment (the share of probes that succeeded and met every latency SLO)", ""},
	{"LLMProberAvailabilityBudgetBurn", `slo="availability"`, "Probe availability", ""},
	{"LLMProberLatencyBudgetBurn", `slo=~"ttft|tpot|e2el"`, "A latency SLO (TTFT, TPOT or E2E latency)", ""},
	// Its own alert: a stall has its own causes (preemption, a long prefill
	// batched in, swapping) and a page for it must not read as slowness.
	{"LLMProberStreamStallBudgetBurn", `slo="max_itl"`, "The stream-stall SLO (max_itl: the longest gap between two content chunks of a probe)", ""},
}

// holdWindow is how long an alert about a target outlives the prober's
// last scrape, and how long a gap in the scrapes must last to change an
// alert's state. It rides over a missed scrape or two, which would
// otherwise reset every pending for: (the drill recorded one), and it holds
// a dead prober's target alerts until LLMProberDown (up == 0 for
// proberDownFor) fires, so that something fires at every evaluation: with
// scrape and evaluation intervals of up to 1m, up turns 0 at most 1m after
// the last scrape, LLMProberDown is pending at the next evaluation (<= 2m)
// and fires proberDownFor later (<= 3m), while the target alerts hold until
// the last scrape leaves this window (3m), one evaluation more.
const (
	holdWindow    = "3m"
	proberDownFor = "1m"
)

// targetPresent keeps an alert only while the prober exports the target:
// when the prober dies (stale markers) or drops the target, the alert
// resolves holdWindow after the last scrape instead of living on in its
// 30m-6h windows; LLMProberDown has fired by then.
const targetPresent = `and on (<TM>)
present_over_time(llm_prober_target_info{SEL}[` + holdWindow + `])`

func burnAlertGroup(c Config) Group {
	g := Group{
		Comment: "Multi-window, multi-burn-rate SLO alerts. Factor = share of the " + c.Period() + " budget\n" +
			"spent in the long window x period / long window.",
		Name: "llm-prober-slo-burn",
	}
	for _, a := range burnAlerts {
		for _, w := range BurnWindows {
			f := fnum(w.Factor(c.PeriodDays))
			ft := factorText(w.Factor(c.PeriodDays))
			expr := c.expand(`
(
  target_model:llm_prober_slo_errors:ratio_rateLONG{SLO}
    > on (slo) group_left () (F * llm_prober:slo_error_budget:ratio)
)
and on (<TM>, slo)
(
  target_model:llm_prober_slo_errors:ratio_rateSHORT{SLO}
    > on (slo) group_left () (F * llm_prober:slo_error_budget:ratio)
)
and on (<TM>)
(
  target_model:llm_prober_probes:increaseLONG
    >= on () group_left () llm_prober:slo_min_probes:count
)
` + targetPresent)
			numbers := ""
			switch a.name {
			case "LLMProberLatencyBudgetBurn":
				numbers = c.latencyNumbers(w.Short)
			case "LLMProberStreamStallBudgetBurn":
				numbers = c.latencyNumbers(w.Short) + c.preemptionsNow()
			}
			expr = strings.NewReplacer("LONG", w.Long, "SHORT", w.Short, "{SLO}", "{"+a.sloMatch+"}", "F *", f+" *").Replace(expr)
			g.Rules = append(g.Rules, Rule{
				Alert: a.name, Expr: expr, For: w.For,
				Labels: map[string]string{"severity": w.Severity, "long": w.Long, "short": w.Short},
				Annotations: map[string]string{
					"summary": fmt.Sprintf("%s is spending its error budget more than %sx as fast as sustainable.", a.summary, ft),
					"description": fmt.Sprintf("{{ $value | humanizePercentage }} of the probes of {{ $labels.target }} "+
						"(model {{ $labels.model }}, prober {{ $labels.instance }}"+fromLocation+") missed the {{ $labels.slo }} SLO "+
						"over the last %s (and over the last %s): at this rate more than %g%% of the %s error budget goes in %s.",
						w.Long, w.Short, w.BudgetShare*100, c.Period(), w.Long) + numbers + c.serverNow() + c.capacityCause(),
					"runbook_url":   c.runbook(a.name),
					"dashboard_url": c.dashboardURL(SLODashboardUID, true),
				},
			})
		}
	}
	return g
}

// capacityAlerts are the alerts that name a server-side cause.
const capacityAlerts = "LLMProber(KVCacheNearFull|HighPreemptionRate|RequestsQueueing)"

// capacityCause attaches to a burn alert's description the capacity alerts
// firing for the same target and model (in its cluster and job): the page then
// names its cause, and the Alertmanager example (grouped by target) sends
// them in the same notification only where they route to the same receiver.
func (c Config) capacityCause() string {
	sel, args := `ALERTS{alertstate=\"firing\", alertname=~\"`+capacityAlerts+`\", job=%q, target=%q, model=%q`, " $labels.job $labels.target $labels.model"
	if c.ClusterLabel != "" {
		sel, args = sel+", "+c.ClusterLabel+"=%q", args+" $labels."+c.ClusterLabel
	}
	return `{{ with query (printf "group by (alertname) (` + sel + `})"` + args + `) }} ` +
		`Capacity alerts firing for this target: {{ range . }}{{ .Labels.alertname }} {{ end }}(see the capacity dashboard).{{ end }}`
}

func (c Config) runbook(alert string) string {
	return c.RunbookURL + "#" + strings.ToLower(alert)
}

// dashboardURL opens a dashboard with the alert's prober, target and model
// selected (perTarget), or its prober only, and its cluster and location
// where the alert has them: an empty value would select only the series
// without the label, not all of them.
func (c Config) dashboardURL(uid string, perTarget bool) string {
	u := strings.TrimRight(c.GrafanaURL, "/") + "/d/" + uid + "?var-job={{ $labels.job | urlquery }}&var-instance={{ $labels.instance | urlquery }}"
	if perTarget {
		u += "&var-target={{ $labels.target | urlquery }}&var-model={{ $labels.model | urlquery }}"
	}
	if c.ClusterLabel != "" {
		u += "{{ with $labels." + c.ClusterLabel + " }}&var-cluster={{ . | urlquery }}{{ end }}"
	}
	return u + "{{ with $labels.location }}&var-location={{ . | urlquery }}{{ end }}"
}
