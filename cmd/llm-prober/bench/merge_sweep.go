package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/merge"
	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// sweepRates checks merge's sweep flags (--rates, --sweep-refine,
// --knee-goodput) as bench checks its own, and reads --rates (nil: none).
func (mc *MergeConfig) sweepRates() ([]float64, error) {
	env := &benchEnv{b: &Config{Rates: mc.Rates, SweepSteps: 1, SweepRefine: mc.SweepRefine, KneeGoodput: mc.KneeGoodput}}
	env.slo, _ = summary.ParseSLO("ttft:1") // parseSweep asks for one; merge's SLOs are the shards'
	if err := env.parseSweep(); err != nil {
		return nil, err
	}
	return env.rates, nil
}

// mergedSweep replays bench --sweep's decisions (sweep.RunSweep) over
// the merged points: a point the sweep asks for is the union of that
// rate's shards, so the knee, its interval and the sweep's file are the
// single process's.
type mergedSweep struct {
	mc     *MergeConfig
	groups []merge.RateRun
	used   map[float64]bool
	out    io.Writer
	log    io.Writer
	dir    string // the points' merged files (--output-json)
	files  map[*sweep.Point]string
	views  map[*sweep.Point]*report.RunView
	env    *benchEnv // the first point's: the deciding flags, the same in all
	seed0  int64     // point 0's seed
	step   int       // 1: seed + point number (fresh prompts), 0: one seed; -1 unknown yet
	prompt freshness // point 0's
	title  [2]string // the model and point 0's workload
}

// runMergeSweep merges one sharded run per rate into the sweep a single
// bench --sweep --rates would have run, and ends as it would have.
func runMergeSweep(rctx context.Context, mc *MergeConfig, groups []merge.RateRun, out, log io.Writer) (int, error) {
	rates, err := mc.sweepRates()
	if err != nil {
		return ExitBadInput, err
	}
	if err := merge.CheckSweep(groups); err != nil {
		return ExitBadInput, err
	}
	ms := &mergedSweep{mc: mc, groups: groups, used: map[float64]bool{}, out: out, log: log, step: -1,
		files: map[*sweep.Point]string{}, views: map[*sweep.Point]*report.RunView{}}
	if len(rates) == 0 {
		for _, g := range groups {
			rates = append(rates, g.Rate)
		}
	}
	if mc.OutputJSON != "" {
		var err error
		if ms.dir, err = os.MkdirTemp("", "llm-prober-merge-sweep-"); err != nil {
			return ExitError, err
		}
		defer os.RemoveAll(ms.dir)
	}
	sw, err := sweep.RunSweep(rctx, sweep.SweepConfig{Rates: rates, Refine: mc.SweepRefine, KneeGoodput: mc.KneeGoodput, Run: ms.point})
	var unused []string
	for _, g := range groups {
		if !ms.used[g.Rate] {
			unused = append(unused, fmt.Sprintf("%g req/s (%d files)", g.Rate, len(g.Paths)))
		}
	}
	if len(unused) > 0 {
		fmt.Fprintf(log, "not a point of this sweep (a single process would not have run them): %s\n", strings.Join(unused, ", "))
	}
	if err != nil {
		var pe pointError
		if errors.As(err, &pe) {
			return pe.code, err
		}
		return ExitError, err
	}
	sw.Prompts = ms.prompt.sweepString()
	report.WriteSweep(sw, out)
	env := ms.env
	if mc.Report != "" {
		h := env.sweepHTML(sw, ms.views)
		h.Title = fmt.Sprintf("%s — %s (sharded sweep, %d points)", ms.title[0], ms.title[1], len(sw.Points))
		if err := writeHTML(mc.Report, h); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(log, "wrote %s\n", mc.Report)
	}
	if mc.OutputJSON != "" {
		if err := writeSweepJSON(mc.OutputJSON, sw, ms.files); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(log, "wrote %s\n", mc.OutputJSON)
	}
	if sw.Above != nil {
		return ExitFailed, fmt.Errorf("knee above %.2f req/s (lower bound): extend --rates", sw.Above.Rate)
	}
	if sw.Knee == nil && len(env.conds) > 0 {
		fmt.Fprintln(log, "fail-on: no rate met the SLO attainment target")
		return ExitFailOn, nil
	}
	if sw.Knee == nil {
		return ExitFailed, fmt.Errorf("no rate met the knee's SLO attainment (%g%% of requests meeting every SLO)", mc.KneeGoodput)
	}
	return env.failOn(sw.Knee.Report), nil
}

// pointError is a point the sweep could not merge, with merge's exit code.
type pointError struct {
	code int
	error
}

func (e pointError) Unwrap() error { return e.error }

// point is sweep.SweepConfig.Run: the union of the shards at rate.
func (ms *mergedSweep) point(ctx context.Context, kind string, rate float64) (*sweep.Point, error) {
	k := len(ms.used)
	var g *merge.RateRun
	for i := range ms.groups {
		if sameRate(ms.groups[i].Rate, rate) {
			g = &ms.groups[i]
		}
	}
	if g == nil {
		return nil, pointError{ExitFailed, fmt.Errorf("the sweep's %s point at %g req/s has no shard files: run a sharded run at --request-rate %g (--seed %s) and merge again with its files, or merge with --sweep-refine 0 to stop before refining",
			kind, rate, rate, ms.seedFor(k))}
	}
	if ms.used[g.Rate] {
		return nil, pointError{ExitFailed, fmt.Errorf("the sweep's %s point at %g req/s is a rate it ran already: one sharded run cannot be two points", kind, rate)}
	}
	ms.used[g.Rate] = true
	fmt.Fprintf(ms.log, "point %d (%s) at %g req/s:\n", k, kind, rate)
	m, env, res, code, err := mergeRun(ctx, ms.mc, g.Paths, ms.out, ms.log)
	if err != nil {
		return nil, pointError{code, fmt.Errorf("the %g req/s point: %w", rate, err)}
	}
	if err := ms.checkSeed(k, m, rate); err != nil {
		return nil, pointError{ExitBadInput, err}
	}
	if ms.env == nil {
		ms.env = env
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
			return nil, pointError{ExitError, err}
		}
		ms.files[p] = path
	}
	if ms.mc.Report != "" {
		ms.views[p] = report.NewRunView(fmt.Sprintf("%s %.2f req/s", kind, rate), m.Run, res.report, res.server, res.verdict)
	}
	return p, nil
}

// checkSeed: bench --sweep draws point k with --seed + k under fresh
// prompts (the default), else every point with --seed; the merged points
// must follow one of the two, or they are not one sweep's.
func (ms *mergedSweep) checkSeed(k int, m *merge.Result, rate float64) error {
	seed := m.Shards[0].Spec.Seed
	if k == 0 {
		ms.seed0 = seed
		if raw, ok := m.Head["llm_prober_prompts"]; ok {
			_ = json.Unmarshal(raw, &ms.prompt)
		}
		ms.prompt.Seed = seed
		ms.prompt.asked = ms.prompt.On || ms.prompt.Reset || ms.prompt.CacheSalt
		return nil
	}
	switch {
	case ms.step < 0 && seed == ms.seed0+int64(k):
		ms.step, ms.prompt.asked = 1, true
	case ms.step < 0 && seed == ms.seed0:
		ms.step, ms.prompt.asked = 0, false
	}
	if ms.step < 0 || seed != ms.seed0+int64(ms.step*k) {
		return fmt.Errorf("the %g req/s point is the sweep's point %d: a single bench --sweep draws it with --seed %s, its shards ran --seed %d",
			rate, k, ms.seedFor(k), seed)
	}
	return nil
}

// seedFor is the seed point k is drawn with, as far as known.
func (ms *mergedSweep) seedFor(k int) string {
	switch {
	case len(ms.used) == 0:
		return "as the other points'"
	case ms.step == 1:
		return fmt.Sprint(ms.seed0 + int64(k))
	case ms.step == 0:
		return fmt.Sprint(ms.seed0)
	}
	return fmt.Sprintf("%d (fresh prompts: seed + point number) or %d (--no-fresh-prompts)", ms.seed0+int64(k), ms.seed0)
}

// sameRate: a refined rate is a midpoint computed in float64; a run's
// --request-rate is its decimal text.
func sameRate(a, b float64) bool {
	d := a - b
	return d <= 1e-9*max(a, b) && -d <= 1e-9*max(a, b)
}
