package bench

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llm-prober/llm-prober/capacity"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// parseFlags reads and checks every flag before anything runs (exit 2 on
// an error): a typo must not cost a tokenizer round trip, let alone a
// whole run or sweep.
func (env *benchEnv) parseFlags() error {
	b := env.b
	if err := env.parseDecide(); err != nil {
		return err
	}
	var err error
	if _, _, err := b.warmupSpec(); err != nil {
		return err
	}
	if env.rate, err = workload.ParseRate(b.Rate); err != nil {
		return fmt.Errorf("--request-rate: %w", err)
	}
	if b.Temperature != "" {
		t, err := strconv.ParseFloat(strings.TrimSpace(b.Temperature), 64)
		if err != nil || t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("--temperature %q is not a number ≥ 0", b.Temperature)
		}
		env.temperature = &t
	}
	if err := env.checkShape(); err != nil {
		return err
	}
	sweep := b.Sweep || b.Rates != ""
	switch {
	case !(b.Burstiness > 0) || math.IsInf(b.Burstiness, 0):
		return fmt.Errorf("--burstiness %g: the gamma shape of the arrival gaps must be positive (1 is Poisson, lower burstier)", b.Burstiness)
	case b.Concurrency < 0 || b.MaxConcurrency < 0:
		return errors.New("--concurrency and --max-concurrency cannot be negative")
	case b.Duration < 0:
		return errors.New("--duration cannot be negative")
	case b.Duration == 0 && b.NumPrompts <= 0:
		return errors.New("--num-prompts must be positive (or give --duration)")
	case !sweep && b.Concurrency == 0 && math.IsInf(env.rate, 1) && b.Duration > 0 && b.MaxConcurrency == 0:
		return errors.New("--request-rate inf with --duration needs --max-concurrency (else it sends without end)")
	case b.Timeout <= 0:
		return errors.New("--timeout must be positive")
	case b.IdleTimeout <= 0:
		return errors.New("--idle-timeout must be positive")
	case b.ServerMetrics && b.MetricsInterval <= 0:
		return errors.New("--metrics-interval must be positive")
	}
	if err := b.checkWorkload(); err != nil {
		return err
	}
	if err := b.checkDerive(); err != nil {
		return err
	}
	if sweep {
		if err := env.parseSweep(); err != nil {
			return err
		}
	}
	return b.checkPlan()
}

// parseDecide reads the flags that judge a run (--goodput,
// --percentiles, --fail-on): bench's and bench merge's.
func (env *benchEnv) parseDecide() error {
	b := env.b
	d, err := summary.ParseDecide(b.Goodput, b.Percentiles, b.FailOn)
	env.slo, env.ps, env.conds = d.SLO, d.Percentiles, d.Conds
	return err
}

// checkWorkload checks the dataset flags.
func (b *Config) checkWorkload() error {
	switch b.Dataset {
	case "sharegpt", "jsonl", "trace":
		if b.DatasetPath == "" {
			return fmt.Errorf("--dataset-name %s needs --dataset-path", b.Dataset)
		}
	default:
		if b.InputTokens <= 0 || b.OutputTokens <= 0 || b.PrefixTokens < 0 || !(b.RangeRatio >= 0 && b.RangeRatio < 1) {
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
	case b.SweepSteps < 1:
		return errors.New("--sweep-steps must be at least 1")
	case b.MinSamples < 0:
		return errors.New("--min-samples cannot be negative")
	}
	if err := sweep.CheckFlags(b.SweepRefine, b.KneeGoodput); err != nil {
		return err
	}
	if b.Rates == "" {
		return nil
	}
	var err error
	env.rates, err = sweep.ParseRates(b.Rates)
	return err
}

// checkPlan checks the capacity-plan flags when a plan is asked for: one
// of --daily-requests and --peak-rps (both is an error, not a silent
// precedence), --headroom, --peak-to-average, --gpus-per-replica; with
// --knee-rate, the plan itself (a result beyond range is refused before
// anything runs).
func (b *Config) checkPlan() error {
	if b.DailyRequests == 0 && b.PeakRPS == 0 && b.KneeRate == 0 {
		return nil
	}
	if b.KneeRate != 0 {
		if err := capacity.CheckKnee(b.KneeRate); err != nil {
			return fmt.Errorf("--knee-rate: %w", err)
		}
		_, err := capacity.NewPlan(b.KneeRate, b.DailyRequests, b.PeakRPS, b.PeakToAverage, b.Headroom, b.GPUsPerReplica)
		return err
	}
	return capacity.CheckDemand(b.DailyRequests, b.PeakRPS, b.PeakToAverage, b.Headroom, b.GPUsPerReplica)
}
