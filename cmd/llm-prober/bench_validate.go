package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest"
)

// parseFlags reads and checks every flag before anything runs (exit 2 on
// an error): a typo must not cost a tokenizer round trip, let alone a
// whole run or sweep.
func (env *benchEnv) parseFlags() error {
	b := env.b
	var err error
	if env.slo, err = loadtest.ParseSLO(b.goodput); err != nil {
		return err
	}
	if env.ps, err = parsePercentiles(b.percentiles); err != nil {
		return err
	}
	for _, s := range b.failOn {
		c, err := loadtest.ParseCondition(s)
		if err != nil {
			return err
		}
		if err := c.Resolve(env.ps, env.slo); err != nil {
			return err
		}
		env.conds = append(env.conds, c)
	}
	if _, _, err := b.warmupSpec(); err != nil {
		return err
	}
	if env.rate, err = parseRate(b.rate); err != nil {
		return fmt.Errorf("--request-rate: %w", err)
	}
	if b.temperature != "" {
		t, err := strconv.ParseFloat(strings.TrimSpace(b.temperature), 64)
		if err != nil || t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("--temperature %q is not a number ≥ 0", b.temperature)
		}
		env.temperature = &t
	}
	if err := env.checkShape(); err != nil {
		return err
	}
	sweep := b.sweep || b.rates != ""
	switch {
	case !(b.burstiness > 0) || math.IsInf(b.burstiness, 0):
		return fmt.Errorf("--burstiness %g: the gamma shape of the arrival gaps must be positive (1 is Poisson, lower burstier)", b.burstiness)
	case b.concurrency < 0 || b.maxConc < 0:
		return errors.New("--concurrency and --max-concurrency cannot be negative")
	case b.duration < 0:
		return errors.New("--duration cannot be negative")
	case b.duration == 0 && b.numPrompts <= 0:
		return errors.New("--num-prompts must be positive (or give --duration)")
	case !sweep && b.concurrency == 0 && math.IsInf(env.rate, 1) && b.duration > 0 && b.maxConc == 0:
		return errors.New("--request-rate inf with --duration needs --max-concurrency (else it sends without end)")
	case b.timeout <= 0:
		return errors.New("--timeout must be positive")
	case b.idleTimeout <= 0:
		return errors.New("--idle-timeout must be positive")
	case b.serverMetrics && b.metricsInterval <= 0:
		return errors.New("--metrics-interval must be positive")
	}
	if err := b.checkWorkload(); err != nil {
		return err
	}

	if sweep {
		if err := env.parseSweep(); err != nil {
			return err
		}
	}
	return b.checkPlan()
}

// checkWorkload checks the dataset flags.
func (b *benchFlags) checkWorkload() error {
	switch b.dataset {
	case "sharegpt", "jsonl", "trace":
		if b.datasetPath == "" {
			return fmt.Errorf("--dataset-name %s needs --dataset-path", b.dataset)
		}
	default:
		if b.inTok <= 0 || b.outTok <= 0 || b.prefixTok < 0 || !(b.rangeRatio >= 0 && b.rangeRatio < 1) {
			return errors.New("--input-tokens and --output-tokens must be positive, --prefix-tokens not negative, --range-ratio in [0, 1)")
		}
	}
	return nil
}

// parseSweep checks --sweep's flags and reads --rates.
func (env *benchEnv) parseSweep() error {
	b := env.b
	if !env.slo.Set() {
		return errors.New("a sweep finds the highest rate that meets SLOs: give --goodput, e.g. \"ttft:500 tpot:50\"")
	}
	switch {
	case b.sweepSteps < 1:
		return errors.New("--sweep-steps must be at least 1")
	case b.sweepRefine < 0:
		return errors.New("--sweep-refine cannot be negative")
	case b.minSamples < 0:
		return errors.New("--min-samples cannot be negative")
	case !(b.kneeGoodput > 0 && b.kneeGoodput <= 100):
		return fmt.Errorf("--knee-goodput %g is not a percentage in (0, 100]", b.kneeGoodput)
	}
	if b.rates == "" {
		return nil
	}
	for _, f := range strings.Split(b.rates, ",") {
		r, err := parseRate(strings.TrimSpace(f))
		if err != nil || math.IsInf(r, 1) {
			return fmt.Errorf("--rates: %q is not a finite positive rate", f)
		}
		env.rates = append(env.rates, r)
	}
	return nil
}

// checkPlan checks the capacity-plan flags when a plan is asked for: one
// of --daily-requests and --peak-rps (both is an error, not a silent
// precedence), --headroom, --peak-to-average, --gpus-per-replica.
func (b *benchFlags) checkPlan() error {
	if b.kneeRate < 0 {
		return errors.New("--knee-rate cannot be negative")
	}
	if b.dailyRequests == 0 && b.peakRPS == 0 && b.kneeRate == 0 {
		return nil
	}
	_, err := loadtest.NewPlan(1, b.dailyRequests, b.peakRPS, b.peakToAverage, b.headroom, b.gpusPerReplica)
	return err
}
