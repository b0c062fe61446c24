package mergecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llm-prober/llm-prober/cmd/llm-prober/bench/exitcode"
	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/merge"
	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// sweepRates checks merge's sweep flags (--rates, --sweep-refine,
// --knee-goodput) as bench checks its own, and reads --rates (nil: none).
func (mc *Config) sweepRates() ([]float64, error) {
	if err := sweep.CheckFlags(mc.SweepRefine, mc.KneeGoodput); err != nil {
		return nil, err
	}
	if mc.Rates == "" {
		return nil, nil
	}
	return sweep.ParseRates(mc.Rates)
}

// mergedSweep replays bench --sweep's decisions (sweep.RunSweep) over
// the merged points: a point the sweep asks for is the union of that
// rate's shards, so the knee, its interval and the sweep's file are the
// single process's.
type mergedSweep struct {
	mc     *Config
	points *merge.Points
	out    io.Writer
	log    io.Writer
	dir    string // the points' merged files (--output-json)
	files  map[*sweep.Point]string
	views  map[*sweep.Point]*report.RunView
	decide *summary.Decide    // the first point's: the deciding flags, the same in all
	prompt workload.Freshness // point 0's
	title  [2]string          // the model and point 0's workload
}

// runMergeSweep merges one sharded run per rate into the sweep a single
// bench --sweep --rates would have run, and ends as it would have.
func runMergeSweep(rctx context.Context, mc *Config, groups []merge.RateRun, out, log io.Writer) (int, error) {
	rates, err := mc.sweepRates()
	if err != nil {
		return exitcode.BadInput, err
	}
	if err := merge.CheckSweep(groups); err != nil {
		return exitcode.BadInput, err
	}
	ms := &mergedSweep{mc: mc, points: merge.NewPoints(groups), out: out, log: log,
		files: map[*sweep.Point]string{}, views: map[*sweep.Point]*report.RunView{}}
	if len(rates) == 0 {
		for _, g := range groups {
			rates = append(rates, g.Rate)
		}
	}
	if mc.OutputJSON != "" {
		var err error
		if ms.dir, err = os.MkdirTemp("", "llm-prober-merge-sweep-"); err != nil {
			return exitcode.Error, err
		}
		defer os.RemoveAll(ms.dir)
	}
	sw, err := sweep.RunSweep(rctx, sweep.SweepConfig{Rates: rates, Refine: mc.SweepRefine, KneeGoodput: mc.KneeGoodput, Run: ms.point})
	if u := ms.points.Unused(); u != "" {
		fmt.Fprintf(log, "not a point of this sweep (a single process would not have run them): %s\n", u)
	}
	if err != nil {
		var pe pointError
		if errors.As(err, &pe) {
			return pe.code, err
		}
		return exitcode.Error, err
	}
	sw.Prompts = ms.prompt.SweepString()
	report.WriteSweep(sw, out)
	dec := ms.decide
	if mc.Report != "" {
		h := report.NewSweepHTML(sw, ms.views)
		h.Title = fmt.Sprintf("%s — %s (sharded sweep, %d points)", ms.title[0], ms.title[1], len(sw.Points))
		if err := report.WriteHTMLFile(mc.Report, h); err != nil {
			return exitcode.Error, err
		}
		fmt.Fprintf(log, "wrote %s\n", mc.Report)
	}
	if mc.OutputJSON != "" {
		if err := sweep.WriteJSON(mc.OutputJSON, sw, ms.files); err != nil {
			return exitcode.Error, err
		}
		fmt.Fprintf(log, "wrote %s\n", mc.OutputJSON)
	}
	if sw.Above != nil {
		return exitcode.Failed, fmt.Errorf("knee above %.2f req/s (lower bound): extend --rates", sw.Above.Rate)
	}
	if sw.Knee == nil && len(dec.Conds) > 0 {
		fmt.Fprintln(log, "fail-on: no rate met the SLO attainment target")
		return exitcode.FailOn, nil
	}
	if sw.Knee == nil {
		return exitcode.Failed, fmt.Errorf("no rate met the knee's SLO attainment (%g%% of requests meeting every SLO)", mc.KneeGoodput)
	}
	return failOn(dec.Conds, sw.Knee.Report, log), nil
}

// pointError is a point the sweep could not merge, with merge's exit code.
type pointError struct {
	code int
	error
}

func (e pointError) Unwrap() error { return e.error }

// point is sweep.SweepConfig.Run: the union of the shards at rate.
func (ms *mergedSweep) point(ctx context.Context, kind string, rate float64) (*sweep.Point, error) {
	g, k, err := ms.points.Next(kind, rate)
	if err != nil {
		return nil, pointError{exitcode.Failed, err}
	}
	fmt.Fprintf(ms.log, "point %d (%s) at %g req/s:\n", k, kind, rate)
	m, res, code, err := mergeRun(ctx, ms.mc, g.Paths, ms.log)
	if err != nil {
		return nil, pointError{code, fmt.Errorf("the %g req/s point: %w", rate, err)}
	}
	fresh, err := ms.points.Seed(k, m.Shards[0].Spec.Seed, rate)
	if err != nil {
		return nil, pointError{exitcode.BadInput, err}
	}
	if k == 0 {
		if raw, ok := m.Head["llm_prober_prompts"]; ok {
			_ = json.Unmarshal(raw, &ms.prompt)
		}
		ms.prompt.Seed = m.Shards[0].Spec.Seed
		ms.prompt.Asked = ms.prompt.On || ms.prompt.Reset || ms.prompt.CacheSalt
	} else {
		ms.prompt.Asked = fresh // the seeds say it
	}
	if ms.decide == nil {
		ms.decide = &res.decide
		ms.title = [2]string{m.Shards[0].Decide.Model, m.Run.Opts.Workload.Describe()}
	}
	tail := res.report.TTFT.Tail()
	fmt.Fprintf(ms.log, "%s %.2f req/s: %.2f req/s achieved, %.2f%% good, p%s TTFT %.1f ms, %s\n", kind, rate,
		res.report.RequestThroughput, res.report.GoodputPercent, textfmt.PercentileName(tail),
		res.report.TTFT.Value(tail), res.verdict.Bottleneck)
	p := &sweep.Point{Report: res.report, Verdict: res.verdict.Bottleneck}
	if ms.dir != "" {
		path := filepath.Join(ms.dir, fmt.Sprintf("point-%d.json", k))
		if err := writeMerged(ctx, m, res, path, kind); err != nil {
			return nil, pointError{exitcode.Error, err}
		}
		ms.files[p] = path
	}
	if ms.mc.Report != "" {
		ms.views[p] = report.NewRunView(fmt.Sprintf("%s %.2f req/s", kind, rate), m.Run, res.report, res.server, res.verdict)
	}
	return p, nil
}
