package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/llm-prober/llm-prober/capacity"
	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// sweep runs --sweep / --rates, prints the table, the knee, the curve and
// the capacity plan. Flags were checked by parseSweep.
func (env *benchEnv) sweep(ctx context.Context) (int, error) {
	b := env.b
	// With --output-json, each point's result (the single-run file: the
	// aggregate, then every request) goes to a file of its own, copied
	// into the sweep's file at the end.
	var jsonDir string
	pointJSON := map[*sweep.Point]string{}
	if b.OutputJSON != "" {
		var err error
		if jsonDir, err = os.MkdirTemp("", "llm-prober-sweep-"); err != nil {
			return ExitError, err
		}
		defer os.RemoveAll(jsonDir)
	}
	views := map[*sweep.Point]*report.RunView{} // --report's
	points := 0                                 // run so far: point k draws with seed --seed + k
	var first workload.Freshness
	cfg := sweep.SweepConfig{Rates: env.rates, Steps: b.SweepSteps, Refine: b.SweepRefine, KneeGoodput: b.KneeGoodput,
		Run: func(ctx context.Context, kind string, rate float64) (*sweep.Point, error) {
			o := env.options(rate, 0)
			fresh := env.freshen(ctx, &o, points)
			if points == 0 {
				first = fresh
			}
			points++
			label := fmt.Sprintf("%s %.2f req/s: ", kind, rate)
			switch kind {
			case sweep.PointSync:
				// A baseline needs few requests: each runs alone.
				o.Concurrency, o.MaxConcurrency, label = 1, 0, "synchronous: "
				if o.NumPrompts > 0 {
					o.NumPrompts = min(max(o.NumPrompts/10, 5), 50)
				}
			case sweep.PointMax:
				o.Rate, label = math.Inf(1), "max throughput: "
				if o.Duration > 0 && o.MaxConcurrency == 0 {
					o.Duration, o.NumPrompts = 0, max(b.NumPrompts, 1)
				}
				sizeForP99(&o, b.MinSamples)
			default:
				sizeForP99(&o, b.MinSamples)
			}
			var path string
			if jsonDir != "" {
				path = filepath.Join(jsonDir, fmt.Sprintf("point-%d.json", len(pointJSON)))
			}
			res, err := env.executeWith(ctx, o, label, path, kind, fresh)
			if err != nil {
				return nil, err
			}
			tail := res.report.TTFT.Tail()
			fmt.Fprintf(env.log, "%s%.2f req/s achieved, %.2f%% good, p%s TTFT %.1f ms, %s\n", label,
				res.report.RequestThroughput, res.report.GoodputPercent, textfmt.PercentileName(tail),
				res.report.TTFT.Value(tail), res.verdict.Bottleneck)
			p := &sweep.Point{Report: res.report, Verdict: res.verdict.Bottleneck}
			if path != "" {
				pointJSON[p] = path
			}
			views[p] = res.view
			return p, nil
		}}
	cfg.Planned = env.announcePlan
	env.announceMinSamples()
	sw, err := sweep.RunSweep(ctx, cfg)
	if sw != nil {
		sw.Prompts = first.SweepString()
		if b.sweepHook != nil {
			b.sweepHook(sw)
		}
	}
	if sw != nil && len(sw.Points) > 0 {
		report.WriteSweep(sw, env.out)
		report.WriteExtraPoints(env.extra, env.out)
	}
	if err != nil {
		// Interrupted: the points so far are still written.
		if ctx.Err() != nil && b.OutputJSON != "" && sw != nil && len(sw.Points) > 0 {
			if werr := sweep.WriteJSON(b.OutputJSON, sw, pointJSON); werr != nil {
				return ExitError, errors.Join(err, werr)
			}
			fmt.Fprintf(env.log, "wrote %s (the points run so far)\n", b.OutputJSON)
		}
		if ctx.Err() != nil {
			if werr := env.writeSweepReport(sw, views); werr != nil {
				return ExitError, errors.Join(err, werr)
			}
		}
		return ExitError, err
	}
	if b.Curve != "" {
		f, err := os.Create(b.Curve)
		if err != nil {
			return ExitError, err
		}
		title := fmt.Sprintf("%s — %s", env.target.Model, env.workload.Describe())
		if err := errors.Join(report.WriteSweepSVG(sw, f, title), f.Close()); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(env.log, "wrote %s\n", b.Curve)
	}
	if err := env.writeSweepReport(sw, views); err != nil {
		return ExitError, err
	}
	if b.OutputJSON != "" {
		if err := sweep.WriteJSON(b.OutputJSON, sw, pointJSON); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(env.log, "wrote %s\n", b.OutputJSON)
	}
	if sw.Above != nil {
		// The top rate held: the knee is higher, by an unknown amount. A
		// plan from it would be a plan from a number never measured.
		if b.DailyRequests > 0 || b.PeakRPS > 0 {
			fmt.Fprintf(env.out, "Capacity plan: not printed: the knee was not reached (above %.2f req/s); extend --rates\n", sw.Above.Rate)
		}
		return ExitFailed, fmt.Errorf("knee above %.2f req/s (lower bound): extend --rates", sw.Above.Rate)
	}
	if sw.Knee != nil && (b.DailyRequests > 0 || b.PeakRPS > 0) {
		p, err := capacity.NewPlan(sw.KneeRate(), b.DailyRequests, b.PeakRPS, b.PeakToAverage, b.Headroom, b.GPUsPerReplica)
		if err != nil {
			return ExitBadInput, err
		}
		p.WriteText(env.out)
	}
	if sw.Knee == nil && len(env.conds) > 0 {
		fmt.Fprintln(env.log, "fail-on: no rate met the SLO attainment target")
		return ExitFailOn, nil
	}
	if sw.Knee == nil {
		// A sweep exists to find the knee: none is a failed run, not a
		// result to read as success (a dead server fails every point).
		return ExitFailed, fmt.Errorf("no rate met the knee's SLO attainment (%g%% of requests meeting every SLO)", b.KneeGoodput)
	}
	return env.failOn(sw.Knee.Report), nil
}

// sizeForP99 raises an open-loop point's request count, or its duration
// at its rate, to at least n measured requests: a p99 from 120 requests
// moves by one bad request (0.8 %).
func sizeForP99(o *loadtest.Options, n int) {
	switch {
	case n <= 0:
	case o.NumPrompts > 0:
		o.NumPrompts = max(o.NumPrompts, n)
	case o.Duration > 0 && o.Rate > 0 && !math.IsInf(o.Rate, 1):
		o.Duration = max(o.Duration, time.Duration(float64(n)/o.Rate*float64(time.Second)))
	}
}

// planOnly prints a capacity plan from --knee-rate without running.
func (b *Config) planOnly(env *benchEnv) (int, error) {
	p, err := capacity.NewPlan(b.KneeRate, b.DailyRequests, b.PeakRPS, b.PeakToAverage, b.Headroom, b.GPUsPerReplica)
	if err != nil {
		return ExitBadInput, err
	}
	p.WriteText(env.out)
	return 0, nil
}
