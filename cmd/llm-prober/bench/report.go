package bench

import (
	"fmt"
	"strings"

	"github.com/llm-prober/llm-prober/capacity"
	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// checkReport fails before the run, not after it, when --report cannot be
// written: its directory must exist.
func (b *Config) checkReport() error { return report.CheckHTMLPath(b.Report) }

// view keeps what the HTML report draws of res (bounded, so a sweep keeps
// one per point); nothing without --report.
func (env *benchEnv) view(res *benchResult, label string) {
	if env.b.Report != "" {
		name := strings.TrimSuffix(strings.TrimSpace(label), ":")
		res.view = report.NewRunView(name, res.run, res.report, res.server, res.verdict)
	}
}

// writeReport writes --report, titled with the model and workload.
func (env *benchEnv) writeReport(h *report.HTMLReport) error {
	if env.b.Report == "" {
		return nil
	}
	h.Title = fmt.Sprintf("%s — %s", env.target.Model, env.workload.Describe())
	if err := report.WriteHTMLFile(env.b.Report, h); err != nil {
		return err
	}
	fmt.Fprintf(env.log, "wrote %s\n", env.b.Report)
	return nil
}

// writeSweepReport draws the sweep, its plan if asked for, and the run at
// its knee (else at the first rate that failed, else the last point).
func (env *benchEnv) writeSweepReport(sw *sweep.Sweep, views map[*sweep.Point]*report.RunView) error {
	if env.b.Report == "" || sw == nil || len(sw.Points) == 0 {
		return nil
	}
	return env.writeReport(env.sweepHTML(sw, views))
}

// sweepHTML is the sweep's report: the sweep, the plan if asked, and the
// run view of the knee (else the lower bound, the first failure, the
// last point).
func (env *benchEnv) sweepHTML(sw *sweep.Sweep, views map[*sweep.Point]*report.RunView) *report.HTMLReport {
	b := env.b
	h := report.NewSweepHTML(sw, views)
	if sw.Knee != nil && (b.DailyRequests > 0 || b.PeakRPS > 0) {
		h.Plan, _ = capacity.NewPlan(sw.KneeRate(), b.DailyRequests, b.PeakRPS, b.PeakToAverage, b.Headroom, b.GPUsPerReplica)
	}
	return h
}
