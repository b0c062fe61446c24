package bench

import (
	"fmt"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/prober"
)

// openCSV creates --output-csv's file, if asked for, before the first
// run: a bad path fails now, not after the run.
func (env *benchEnv) openCSV() error {
	if env.b.OutputCSV == "" {
		return nil
	}
	c, err := report.CreateCSV(env.b.OutputCSV)
	if err != nil {
		return err
	}
	env.csv = c
	return nil
}

// closeCSV flushes and closes the file; its rows were flushed after each
// run, so an error here is reported, not fatal.
func (env *benchEnv) closeCSV() {
	if env.csv == nil {
		return
	}
	if err := env.csv.Close(); err != nil {
		fmt.Fprintf(env.log, "--output-csv: %v\n", err)
		return
	}
	fmt.Fprintf(env.log, "wrote %s\n", env.b.OutputCSV)
}

// withCSV adds --output-csv's rows to o's per-request output, under the
// sweep point's kind (--num-runs: the run; "" for a single run) and o's
// rate.
func (env *benchEnv) withCSV(o *loadtest.Options, kind string) {
	if env.csv == nil {
		return
	}
	env.csv.Point, env.csv.Rate = kind, report.RateText(o)
	if kind == "" {
		env.csv.Point = env.runName
	}
	prev := o.OnResult
	o.OnResult = func(rec *loadtest.Record, res *prober.Result) {
		if prev != nil {
			prev(rec, res)
		}
		env.csv.Add(rec, res)
	}
}

// flushCSV writes a finished run's rows out.
func (env *benchEnv) flushCSV() error {
	if env.csv == nil {
		return nil
	}
	if err := env.csv.Flush(); err != nil {
		return fmt.Errorf("--output-csv: %w", err)
	}
	return nil
}
