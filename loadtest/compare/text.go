package compare

import (
	"fmt"
	"io"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// WriteText prints the comparison: what differs in the workloads, one
// line per metric, then the verdict on the thresholds.
func (c *Comparison) WriteText(w io.Writer) {
	if c.Mode == "runs" {
		fmt.Fprintf(w, "Base: %s (%d runs)\nNew:  %s (%d runs)\n", c.Base, c.BaseRuns, c.New, c.NewRuns)
	} else {
		fmt.Fprintf(w, "Base: %s (%d measured requests)\nNew:  %s (%d measured requests)\n", c.Base, c.BaseRequests, c.New, c.NewRequests)
	}
	if len(c.BaseSendLagP99)+len(c.NewSendLagP99) > 0 {
		fmt.Fprintf(w, "Send lag p99 (ms, how late the client sent): base %s, new %s\n", lagList(c.BaseSendLagP99), lagList(c.NewSendLagP99))
	}
	for _, m := range c.Warnings {
		fmt.Fprintln(w, "WARNING: "+m)
	}
	for _, n := range c.Notes {
		fmt.Fprintln(w, "Note: the runs differ in "+n)
	}
	if len(c.WorkloadDiffs) > 0 {
		fmt.Fprintln(w, "WARNING: the runs' workloads differ (compared anyway, --force):")
		for _, d := range c.WorkloadDiffs {
			fmt.Fprintln(w, "  "+d)
		}
	}
	fmt.Fprintf(w, "%-26s %12s %12s %12s %8s  %-14s %8s\n", "Metric", "Base", "New", "Delta", "Delta%", "Test", "p")
	for i := range c.Rows {
		r := &c.Rows[i]
		dp := "n/a"
		if r.DeltaPercent != nil {
			dp = fmt.Sprintf("%+.1f%%", *r.DeltaPercent)
		}
		d := "n/a"
		if r.Delta != nil {
			d = fmt.Sprintf("%+.2f", *r.Delta)
		}
		p := "-"
		if r.PValue != nil {
			p = fmt.Sprintf("%.3g", *r.PValue)
		}
		var notes []string
		if r.CILow != nil || r.CIHigh != nil || (r.Test == "batch-means" && r.PValue != nil) {
			notes = append(notes, fmt.Sprintf("%g%% CI [%s, %s]", 100*(1-c.Alpha), ciEnd(r.CILow, "-inf"), ciEnd(r.CIHigh, "+inf")))
		}
		switch {
		case r.Significant && r.Worse:
			notes = append(notes, "worse, significant")
		case r.Significant:
			notes = append(notes, "better, significant")
		}
		if r.Threshold != "" {
			verdict := "within"
			if r.Regression {
				verdict = "REGRESSION beyond"
			}
			notes = append(notes, verdict+" "+r.Threshold)
		}
		line := fmt.Sprintf("%-26s %12s %12s %12s %8s  %-14s %8s  %s", r.Label(), textfmt.FmtNum(r.Base), textfmt.FmtNum(r.New),
			d, dp, r.Test, p, strings.Join(notes, "; "))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	if c.Mode == "runs" {
		fmt.Fprintf(w, "Tests: Welch's t across the runs (each run's value of the metric); two-sided, significant at p < %g.\n", c.Alpha)
	} else {
		fmt.Fprintf(w, "Tests: batch means over the requests in time order, %d batches of neighbours (mean: Welch's t; percentile: the "+
			"runs' order-statistic intervals combined; ITL: their pooled gaps, so the tail is tested on the tail), two-proportion z for "+
			"shares; two-sided, significant at p < %g. Throughputs are one number per run: no test.\n", stats.Batches, c.Alpha)
	}
	if len(c.Regressions) > 0 {
		fmt.Fprintln(w, "Regressions:")
		for _, s := range c.Regressions {
			fmt.Fprintln(w, "  "+s)
		}
	}
}

// lagList prints send lags in ms, "n/a" for none (closed loop).
func lagList(x []float64) string {
	if len(x) == 0 {
		return "n/a"
	}
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = fmt.Sprintf("%.1f", v)
	}
	return strings.Join(parts, ", ")
}

// ciEnd is an interval's end, or unbounded (the run's extreme values
// bound nothing: too few effective requests for that percentile).
func ciEnd(v *float64, none string) string {
	if v == nil {
		return none
	}
	return fmt.Sprintf("%+.2f", *v)
}
