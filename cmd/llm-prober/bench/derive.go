package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/llm-prober/llm-prober/capacity/promsource"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// DeriveConfig makes bench send the workload a server actually serves:
// --workload-from-prometheus derives it from the server's own series,
// --workload-file reads one saved by --save-workload.
type DeriveConfig struct {
	FromPrometheus bool   // --workload-from-prometheus
	Save           string // --save-workload
	File           string // --workload-file
	Prometheus     *promsource.Flags
	// Which of the flags a derived workload fills in the user gave.
	RateSet, BurstinessSet, PrefixTokensSet, InputTokensSet, RangeRatioSet bool

	derived *workload.DerivedWorkload
}

// checkDerive refuses flag combinations that contradict a derived
// workload, before any network.
func (b *Config) checkDerive() error {
	d := &b.Derive
	switch {
	case d.FromPrometheus && d.File != "":
		return errors.New("--workload-from-prometheus and --workload-file both give the workload: choose one")
	case d.Save != "" && !d.FromPrometheus:
		return errors.New("--save-workload needs --workload-from-prometheus")
	case d.Prometheus != nil && d.Prometheus.Given() && !d.FromPrometheus:
		return errors.New("--prometheus.url is read only with --workload-from-prometheus")
	case !d.FromPrometheus && d.File == "":
		return nil
	case b.Dataset != "random":
		return fmt.Errorf("--dataset-name %s conflicts with a derived workload (its lengths come from the served traffic)", b.Dataset)
	case d.InputTokensSet || b.OutputTokensSet || d.RangeRatioSet:
		return errors.New("--input-tokens, --output-tokens and --range-ratio conflict with a derived workload (its lengths come from the served traffic)")
	case d.FromPrometheus && d.Prometheus == nil:
		return errors.New("--workload-from-prometheus needs --prometheus.url")
	}
	if d.FromPrometheus {
		if _, err := d.Prometheus.Config(); err != nil {
			return err
		}
	}
	return nil
}

// deriveWorkload reads or derives the workload, prints it, and fills in
// the rate, burstiness and prefix the user left unset.
func (env *benchEnv) deriveWorkload(ctx context.Context) error {
	b, d := env.b, &env.b.Derive
	var err error
	switch {
	case d.File != "":
		if d.derived, err = workload.LoadDerivedWorkload(d.File); err != nil {
			return badFile{fmt.Errorf("--workload-file: %w", err)}
		}
	case d.FromPrometheus:
		cfg, err := d.Prometheus.Config()
		if err != nil {
			return err
		}
		src, err := promsource.New(*cfg)
		if err != nil {
			return err
		}
		d.derived, err = workload.DeriveWorkload(ctx, src.API(), workload.DeriveOptions{URL: src.URL(), Selector: src.Selector(),
			Window: src.Window(), End: src.End(), Timeout: cfg.Timeout})
		if err != nil {
			return err
		}
		if d.Save != "" {
			if err := d.derived.Save(d.Save); err != nil {
				return fmt.Errorf("--save-workload: %w", err)
			}
			fmt.Fprintf(env.log, "wrote %s\n", d.Save)
		}
	default:
		return nil
	}
	w := d.derived
	w.WriteText(env.log)
	b.InputTokens, b.OutputTokens = max(int(w.Input.Mean+0.5), 1), max(int(w.Output.Mean+0.5), 1)
	if !d.PrefixTokensSet {
		b.PrefixTokens = w.PrefixTokens
	}
	if !d.BurstinessSet && w.Burstiness.Shape > 0 {
		b.Burstiness = w.Burstiness.Shape
	}
	if !d.RateSet && b.Concurrency == 0 && !b.Sweep && b.Rates == "" {
		if !(w.RequestRate > 0) {
			return errors.New("no mean request rate could be derived: give --request-rate")
		}
		env.rate = w.RequestRate
	}
	fmt.Fprintf(env.log, "  bench sends:  --request-rate %s --burstiness %.3g --prefix-tokens %d\n", rateText(env.rate), b.Burstiness, b.PrefixTokens)
	return nil
}

func rateText(r float64) string {
	return fmt.Sprintf("%.4g", r)
}
