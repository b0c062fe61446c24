package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest"
)

// checkNumRuns checks --num-runs (exit 2).
func (b *benchFlags) checkNumRuns() error {
	switch {
	case b.numRuns < 1:
		return fmt.Errorf("--num-runs %d: want at least 1", b.numRuns)
	case b.numRuns > 1 && (b.sweep || b.rates != ""):
		return errors.New("--num-runs repeats a single run; a sweep's points are runs already")
	}
	return nil
}

// repeat runs --num-runs times, each with the next seed (fresh prompts
// and arrivals), prints each report, then every metric's mean and 95 %
// confidence interval over the runs. With --output-json, run i goes to
// FILE's name with .runI before the extension and the summary to FILE.
func (env *benchEnv) repeat(ctx context.Context) (int, error) {
	b := env.b
	defer func() { env.runName = "" }()
	var reps []*loadtest.Report
	var seeds []int64
	code := 0
	for i := range b.numRuns {
		env.runName = fmt.Sprintf("run%d", i+1)
		o := env.options(env.rate, b.concurrency)
		// Run i draws with --seed + i: fresh prompts (and a cache_salt or
		// reset, as sweep points get), or with --no-fresh-prompts the same
		// prompts at other arrival times.
		f := env.freshen(ctx, &o, i)
		if !f.On {
			o.Seed = b.seed + int64(i)
		}
		seed := o.Seed
		res, err := env.executeWith(ctx, o, fmt.Sprintf("run %d/%d: ", i+1, b.numRuns), runJSONPath(b.outputJSON, i+1), "", f)
		if err != nil {
			return 1, err
		}
		fmt.Fprintf(env.out, "\nRun %d of %d (seed %d)\n", i+1, b.numRuns, seed)
		res.report.WriteText(env.out)
		res.server.WriteText(env.out, res.verdict)
		env.writeExtra(res)
		if res.run.Interrupted {
			return 1, errors.New("interrupted; the reports cover the runs and requests that finished")
		}
		reps, seeds = append(reps, res.report), append(seeds, seed)
		code = max(code, env.failOn(res.report))
	}
	sum := loadtest.SummarizeRuns(reps, seeds)
	sum.WriteText(env.out)
	if b.outputJSON != "" {
		raw, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return 1, err
		}
		if err := os.WriteFile(b.outputJSON, append(raw, '\n'), 0o644); err != nil {
			return 1, err
		}
		fmt.Fprintf(env.log, "wrote %s (runs: %s)\n", b.outputJSON, runJSONPath(b.outputJSON, 0))
	}
	return code, nil
}

// runJSONPath is run i's --output-json file: run.json → run.run2.json
// (i 0: the pattern, run.runN.json); "" without --output-json.
func runJSONPath(path string, i int) string {
	if path == "" {
		return ""
	}
	n := "N"
	if i > 0 {
		n = fmt.Sprint(i)
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".run" + n + ext
}
