package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/capacity/promsource"
	"github.com/llm-prober/llm-prober/loadtest"
)

// deriveFlags make bench send the workload a server actually serves.
type deriveFlags struct {
	fromProm                bool
	save, file              string
	prom                    *promsource.Flags
	rateSet, burstSet       bool
	prefixSet               bool
	inTokSet, rangeRatioSet bool
	derived                 *loadtest.DerivedWorkload
}

func (d *deriveFlags) addFlags(c *kingpin.CmdClause) {
	c.Flag("workload-from-prometheus", "Synthesise the workload from the server's own series in Prometheus (--prometheus.url, --selector, --window): "+
		"prompt and output lengths drawn from its length histograms, the mean rate (unless --request-rate), the burstiness (unless --burstiness) "+
		"and a shared prefix giving its prefix-cache hit rate (unless --prefix-tokens).").BoolVar(&d.fromProm)
	c.Flag("save-workload", "Write the derived workload to this JSON file, for --workload-file.").StringVar(&d.save)
	c.Flag("workload-file", "Send the workload saved by --save-workload (no Prometheus needed).").StringVar(&d.file)
	d.prom = promsource.Register(c)
}

// checkDerive refuses flag combinations that contradict a derived
// workload, before any network.
func (b *benchFlags) checkDerive() error {
	d := &b.derive
	switch {
	case d.fromProm && d.file != "":
		return errors.New("--workload-from-prometheus and --workload-file both give the workload: choose one")
	case d.save != "" && !d.fromProm:
		return errors.New("--save-workload needs --workload-from-prometheus")
	case d.prom.Given() && !d.fromProm:
		return errors.New("--prometheus.url is read only with --workload-from-prometheus")
	case !d.fromProm && d.file == "":
		return nil
	case b.dataset != "random":
		return fmt.Errorf("--dataset-name %s conflicts with a derived workload (its lengths come from the served traffic)", b.dataset)
	case d.inTokSet || b.outTokSet || d.rangeRatioSet:
		return errors.New("--input-tokens, --output-tokens and --range-ratio conflict with a derived workload (its lengths come from the served traffic)")
	}
	if d.fromProm {
		if _, err := d.prom.Config(); err != nil {
			return err
		}
	}
	return nil
}

// deriveWorkload reads or derives the workload, prints it, and fills in
// the rate, burstiness and prefix the user left unset.
func (env *benchEnv) deriveWorkload(ctx context.Context) error {
	b, d := env.b, &env.b.derive
	var err error
	switch {
	case d.file != "":
		if d.derived, err = loadtest.LoadDerivedWorkload(d.file); err != nil {
			return fmt.Errorf("--workload-file: %w", err)
		}
	case d.fromProm:
		cfg, err := d.prom.Config()
		if err != nil {
			return err
		}
		src, err := promsource.New(*cfg)
		if err != nil {
			return err
		}
		d.derived, err = loadtest.DeriveWorkload(ctx, src.API(), loadtest.DeriveOptions{URL: src.URL(), Selector: src.Selector(),
			Window: src.Window(), End: src.End(), Timeout: cfg.Timeout})
		if err != nil {
			return err
		}
		if d.save != "" {
			if err := d.derived.Save(d.save); err != nil {
				return fmt.Errorf("--save-workload: %w", err)
			}
			fmt.Fprintf(env.log, "wrote %s\n", d.save)
		}
	default:
		return nil
	}
	w := d.derived
	w.WriteText(env.log)
	b.inTok, b.outTok = max(int(w.Input.Mean+0.5), 1), max(int(w.Output.Mean+0.5), 1)
	if !d.prefixSet {
		b.prefixTok = w.PrefixTokens
	}
	if !d.burstSet && w.Burstiness.Shape > 0 {
		b.burstiness = w.Burstiness.Shape
	}
	if !d.rateSet && b.concurrency == 0 && !b.sweep && b.rates == "" {
		if !(w.RequestRate > 0) {
			return errors.New("no mean request rate could be derived: give --request-rate")
		}
		env.rate = w.RequestRate
	}
	fmt.Fprintf(env.log, "  bench sends:  --request-rate %s --burstiness %.3g --prefix-tokens %d\n", rateText(env.rate), b.burstiness, b.prefixTok)
	return nil
}

func rateText(r float64) string {
	return fmt.Sprintf("%.4g", r)
}
