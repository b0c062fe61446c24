// Package rules generates llm-prober's Prometheus recording and alerting
// rules (alerts/llm-prober-rules.yml and alerts/llm-prober-alerts.yml)
// from one source, like a monitoring mixin: the job selector, the cluster
// label, the SLO period and objectives, and the dashboard and runbook
// links are options. The dashboards read the SLO period and burn factors
// from the same Config, so both always agree.
package rules

import (
	"fmt"
	"strings"
)

// Config holds the options of the generated rules.
type Config struct {
	// Selector is added to every selector of a raw llm-prober series (and
	// of up), e.g. `job="llm-prober"`. Empty: the metric names alone
	// select, whatever the job is called.
	Selector string
	// ClusterLabel is kept by every aggregation and join, so that one
	// Prometheus (or Thanos/Mimir) holding several clusters alerts per
	// cluster. Harmless when the series have no such label.
	ClusterLabel string
	// GrafanaURL is the base of the dashboard_url annotations.
	GrafanaURL string
	// RunbookURL is the runbook document; the alert's anchor is appended.
	RunbookURL string
	// PeriodDays is the SLO compliance period (error budget window).
	PeriodDays int
	// Objective is the default objective of every SLO (fraction of good probes).
	Objective float64
	// MinProbes is how many probes a burn-rate alert needs in its long window.
	MinProbes int
}

// Default is the configuration of the committed rule files.
func Default() Config {
	return Config{
		ClusterLabel: "cluster",
		GrafanaURL:   "https://grafana.example.com",
		RunbookURL:   "https://github.com/llm-prober/llm-prober/blob/main/docs/runbook.md",
		PeriodDays:   28,
		Objective:    0.99,
		MinProbes:    20,
	}
}

// Validate rejects options that would generate broken rules.
func (c Config) Validate() error {
	switch {
	case c.PeriodDays < 7:
		return fmt.Errorf("period %dd: must be at least 7 days (the slowest burn-rate window is 3d)", c.PeriodDays)
	case c.Objective <= 0 || c.Objective >= 1:
		return fmt.Errorf("objective %g: must be in (0, 1)", c.Objective)
	case c.MinProbes < 1:
		return fmt.Errorf("min probes %d: must be at least 1", c.MinProbes)
	case strings.ContainsAny(c.Selector, "{}"):
		return fmt.Errorf("selector %q: give the matchers without braces, e.g. job=\"llm-prober\"", c.Selector)
	case c.ClusterLabel != "" && !labelNameOK(c.ClusterLabel):
		return fmt.Errorf("cluster label %q is not a label name", c.ClusterLabel)
	}
	return nil
}

func labelNameOK(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// BurnWindow is one multi-window burn-rate alert: it fires when both
// windows spend the error budget faster than Factor times the sustainable
// rate, i.e. when BudgetShare of the period's budget is gone in Long.
type BurnWindow struct {
	Long, Short string
	LongHours   float64
	BudgetShare float64 // fraction of the period's budget spent in Long
	For         string
	Severity    string
}

// Factor is the burn rate that spends BudgetShare of the budget in Long.
func (w BurnWindow) Factor(periodDays int) float64 {
	return w.BudgetShare * float64(periodDays) * 24 / w.LongHours
}

// BurnWindows are the Google SRE workbook's windows (2 % of the budget in
// 1h, 5 % in 6h, 10 % in 1d and in 3d); the factors follow from the period
// (14.4/6/3/1 for 30 days, 13.44/5.6/2.8/0.93 for 28 days).
var BurnWindows = []BurnWindow{
	{Long: "1h", Short: "5m", LongHours: 1, BudgetShare: 0.02, For: "2m", Severity: "critical"},
	{Long: "6h", Short: "30m", LongHours: 6, BudgetShare: 0.05, For: "15m", Severity: "critical"},
	{Long: "1d", Short: "2h", LongHours: 24, BudgetShare: 0.10, For: "1h", Severity: "warning"},
	{Long: "3d", Short: "6h", LongHours: 72, BudgetShare: 0.10, For: "3h", Severity: "warning"},
}

// SLIWindows are the windows the SLI error ratios are recorded over.
var SLIWindows = []string{"5m", "30m", "1h", "2h", "6h", "1d", "3d"}

// SLOs are the SLO names, in the order the rules list them.
var SLOs = []string{"goodput", "availability", "ttft", "tpot", "e2el", "max_itl"}

// Dashboard UIDs, shared with the dashboards package.
const (
	SLODashboardUID      = "llm-prober-slo"
	CapacityDashboardUID = "llm-prober-capacity"
	TargetDashboardUID   = "llm-prober-target"
)

// Period is the SLO period as a PromQL duration, e.g. "28d".
func (c Config) Period() string { return fmt.Sprintf("%dd", c.PeriodDays) }

// expand replaces the placeholders of an expression:
//
//	{SEL}   the configured selector on a raw series (or nothing)
//	{SEL,   the same, followed by more matchers
//	<TM>    the labels of a target as seen by one prober: cluster, job, instance,
//	        location, target, model. location is where the prober runs
//	        (--probe.location); it is on every probe series and on
//	        llm_prober_target_info, and absent when unset (PromQL then
//	        keeps nothing). instance already tells two probers apart; the
//	        label is kept so that the SLIs and alerts say where.
//	<TS>    the same for the server series llm-prober re-exports, which carry
//	        no location: cluster, job, instance, target, model. Joins of
//	        probe series with server series match on these, ignoring location.
//	<LT>    a target as seen from one location, over every prober there:
//	        location, target, model (no cluster, job or instance, so that the
//	        same target probed from several clusters compares)
//	<JI>    the labels of a prober: cluster, job, instance
func (c Config) expand(expr string) string {
	sel, selComma := "", "{"
	if c.Selector != "" {
		sel, selComma = "{"+c.Selector+"}", "{"+c.Selector+", "
	}
	cl := ""
	if c.ClusterLabel != "" {
		cl = c.ClusterLabel + ", "
	}
	return strings.NewReplacer(
		"{SEL}", sel,
		"{SEL, ", selComma,
		"<TM>", cl+"job, instance, location, target, model",
		"<TS>", cl+"job, instance, target, model",
		"<LT>", "location, target, model",
		"<JI>", cl+"job, instance",
	).Replace(expr)
}
