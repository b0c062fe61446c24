package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest"
)

// sweep runs --sweep / --rates, prints the table, the knee, the curve and
// the capacity plan.
func (env *benchEnv) sweep(ctx context.Context) (int, error) {
	b := env.b
	if !env.slo.Set() {
		return 2, errors.New("a sweep finds the highest rate that meets SLOs: give --goodput, e.g. \"ttft:500 tpot:50\"")
	}
	var rates []float64
	if b.rates != "" {
		for _, f := range strings.Split(b.rates, ",") {
			r, err := parseRate(strings.TrimSpace(f))
			if err != nil || math.IsInf(r, 1) {
				return 2, fmt.Errorf("--rates: %q is not a finite positive rate", f)
			}
			rates = append(rates, r)
		}
	}
	cfg := loadtest.SweepConfig{Rates: rates, Steps: b.sweepSteps, Refine: b.sweepRefine, KneeGoodput: b.kneeGoodput,
		Run: func(ctx context.Context, kind string, rate float64) (*loadtest.Point, error) {
			o := env.options(rate, 0)
			label := fmt.Sprintf("%s %.2f req/s: ", kind, rate)
			switch kind {
			case loadtest.PointSync:
				// A baseline needs few requests: each runs alone.
				o.Concurrency, o.MaxConcurrency, label = 1, 0, "synchronous: "
				if o.NumPrompts > 0 {
					o.NumPrompts = min(max(o.NumPrompts/10, 5), 50)
				}
			case loadtest.PointMax:
				o.Rate, label = math.Inf(1), "max throughput: "
				if o.Duration > 0 && o.MaxConcurrency == 0 {
					o.Duration, o.NumPrompts = 0, max(b.numPrompts, 1)
				}
			}
			res, err := env.executeWith(ctx, o, label, "")
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(env.log, "%s%.2f req/s achieved, %.2f%% good, p99 TTFT %.1f ms, %s\n", label,
				res.report.RequestThroughput, res.report.GoodputPercent, res.report.TTFT.Value(99), res.verdict.Bottleneck)
			return &loadtest.Point{Report: res.report, Verdict: res.verdict.Bottleneck}, nil
		}}
	sw, err := loadtest.RunSweep(ctx, cfg)
	if sw != nil && len(sw.Points) > 0 {
		sw.WriteText(env.out)
	}
	if err != nil {
		return 1, err
	}
	if b.curve != "" {
		f, err := os.Create(b.curve)
		if err != nil {
			return 1, err
		}
		title := fmt.Sprintf("%s — %s", env.target.Model, env.workload.Describe())
		if err := errors.Join(sw.WriteSVG(f, title), f.Close()); err != nil {
			return 1, err
		}
		fmt.Fprintf(env.log, "wrote %s\n", b.curve)
	}
	if b.outputJSON != "" {
		if err := writeSweepJSON(b.outputJSON, sw); err != nil {
			return 1, err
		}
		fmt.Fprintf(env.log, "wrote %s\n", b.outputJSON)
	}
	if sw.Knee != nil && (b.dailyRequests > 0 || b.peakRPS > 0) {
		p, err := loadtest.NewPlan(sw.Knee.Rate, b.dailyRequests, b.peakRPS, b.peakToAverage, b.headroom, b.gpusPerReplica)
		if err != nil {
			return 2, err
		}
		p.WriteText(env.out)
	}
	if sw.Knee == nil && len(env.conds) > 0 {
		fmt.Fprintln(env.log, "fail-on: no rate met the goodput target")
		return exitFailOn, nil
	}
	if sw.Knee == nil {
		return 0, nil
	}
	return env.failOn(sw.Knee.Report), nil
}

// planOnly prints a capacity plan from --knee-rate without running.
func (b *benchFlags) planOnly(env *benchEnv) (int, error) {
	p, err := loadtest.NewPlan(b.kneeRate, b.dailyRequests, b.peakRPS, b.peakToAverage, b.headroom, b.gpusPerReplica)
	if err != nil {
		return 2, err
	}
	p.WriteText(env.out)
	return 0, nil
}

// writeSweepJSON writes every point's aggregate (vllm bench keys) and the knee.
func writeSweepJSON(path string, sw *loadtest.Sweep) error {
	var b strings.Builder
	b.WriteString("{\n  \"knee_goodput_percent\": " + strconv.FormatFloat(sw.KneeGoodput, 'g', -1, 64))
	if sw.Knee != nil {
		b.WriteString(",\n  \"knee_request_rate\": " + strconv.FormatFloat(sw.Knee.Rate, 'g', -1, 64))
		fmt.Fprintf(&b, ",\n  \"knee\": %q", sw.KneeSummary())
	}
	b.WriteString(",\n  \"points\": [")
	for i, p := range sw.Points {
		if i > 0 {
			b.WriteString(",")
		}
		head := append([]loadtest.KV{{Key: "kind", Value: p.Kind}, {Key: "bottleneck", Value: p.Verdict}}, p.Report.VLLMKeys()...)
		b.WriteString("\n    {")
		for j, kv := range head {
			if j > 0 {
				b.WriteString(", ")
			}
			v, err := jsonValue(kv.Value)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "%q: %s", kv.Key, v)
		}
		b.WriteString("}")
	}
	b.WriteString("\n  ]\n}\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func jsonValue(v any) (string, error) {
	if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return `"` + strconv.FormatFloat(f, 'g', -1, 64) + `"`, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}
