package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest"
)

// checkReport fails before the run, not after it, when --report cannot be
// written: its directory must exist.
func (b *benchFlags) checkReport() error {
	if b.report == "" {
		return nil
	}
	if st, err := os.Stat(filepath.Dir(b.report)); err != nil || !st.IsDir() {
		return fmt.Errorf("--report %s: no such directory %s", b.report, filepath.Dir(b.report))
	}
	return nil
}

// view keeps what the HTML report draws of res (bounded, so a sweep keeps
// one per point); nothing without --report.
func (env *benchEnv) view(res *benchResult, label string) {
	if env.b.report != "" {
		name := strings.TrimSuffix(strings.TrimSpace(label), ":")
		res.view = loadtest.NewRunView(name, res.run, res.report, res.server, res.verdict)
	}
}

// writeReport writes --report, titled with the model and workload.
func (env *benchEnv) writeReport(h *loadtest.HTMLReport) error {
	if env.b.report == "" {
		return nil
	}
	h.Title = fmt.Sprintf("%s — %s", env.target.Model, env.workload.Describe())
	f, err := os.Create(env.b.report)
	if err != nil {
		return err
	}
	if err := errors.Join(h.Write(f), f.Close()); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	fmt.Fprintf(env.log, "wrote %s\n", env.b.report)
	return nil
}

// writeSweepReport draws the sweep, its plan if asked for, and the run at
// its knee (else at the first rate that failed, else the last point).
func (env *benchEnv) writeSweepReport(sw *loadtest.Sweep, views map[*loadtest.Point]*loadtest.RunView) error {
	if env.b.report == "" || sw == nil || len(sw.Points) == 0 {
		return nil
	}
	b := env.b
	h := &loadtest.HTMLReport{Sweep: sw}
	if sw.Knee != nil && (b.dailyRequests > 0 || b.peakRPS > 0) {
		h.Plan, _ = loadtest.NewPlan(sw.KneeRate(), b.dailyRequests, b.peakRPS, b.peakToAverage, b.headroom, b.gpusPerReplica)
	}
	pick := sw.Knee
	if pick == nil {
		pick = sw.FirstBad
	}
	if pick == nil {
		pick = sw.Points[len(sw.Points)-1]
	}
	if v := views[pick]; v != nil {
		h.Runs = []*loadtest.RunView{v}
	}
	return env.writeReport(h)
}
