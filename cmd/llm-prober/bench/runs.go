package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// checkNumRuns checks --num-runs (exit 2).
func (b *Config) checkNumRuns() error {
	switch {
	case b.NumRuns < 1:
		return fmt.Errorf("--num-runs %d: want at least 1", b.NumRuns)
	case b.NumRuns > 1 && (b.Sweep || b.Rates != ""):
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
	var reps []*summary.Report
	var views []*report.RunView
	var seeds []int64
	code := 0
	for i := range b.NumRuns {
		env.runName = fmt.Sprintf("run%d", i+1)
		o := env.options(env.rate, b.Concurrency)
		// Run i draws with --seed + i: fresh prompts (and a cache_salt or
		// reset, as sweep points get), or with --no-fresh-prompts the same
		// prompts at other arrival times.
		f := env.freshen(ctx, &o, i)
		if !f.On {
			o.Seed = b.Seed + int64(i)
		}
		seed := o.Seed
		res, err := env.executeWith(ctx, o, fmt.Sprintf("run %d/%d: ", i+1, b.NumRuns), runJSONPath(b.OutputJSON, i+1), "", f)
		if err != nil {
			return ExitError, err
		}
		fmt.Fprintf(env.out, "\nRun %d of %d (seed %d)\n", i+1, b.NumRuns, seed)
		report.WriteText(res.report, env.out)
		report.WriteServer(&res.server, env.out, res.verdict)
		env.writeExtra(res)
		if res.run.Interrupted {
			return ExitError, errors.New("interrupted; the reports cover the runs and requests that finished")
		}
		reps, seeds = append(reps, res.report), append(seeds, seed)
		if res.view != nil {
			res.view.Name = fmt.Sprintf("Run %d of %d (seed %d)", i+1, b.NumRuns, seed)
			views = append(views, res.view)
		}
		code = max(code, env.failOn(res.report))
	}
	sum := summary.SummarizeRuns(reps, seeds)
	report.WriteRuns(sum, env.out)
	if err := env.writeReport(&report.HTMLReport{RunsSummary: sum, Runs: views}); err != nil {
		return ExitError, err
	}
	if b.OutputJSON != "" {
		raw, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return ExitError, err
		}
		if err := os.WriteFile(b.OutputJSON, append(raw, '\n'), 0o644); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(env.log, "wrote %s (runs: %s)\n", b.OutputJSON, runJSONPath(b.OutputJSON, 0))
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
