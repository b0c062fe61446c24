package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/loadtest"
)

// compareFlags are the flags of `llm-prober bench compare`; --output-json
// is bench's own.
type compareFlags struct {
	cmd           *kingpin.CmdClause
	bench         *benchFlags
	base, new     string
	maxRegression string
	alpha         float64
	force         bool
}

func newBenchCompareCmd(bench *kingpin.CmdClause, b *benchFlags) *compareFlags {
	c := &compareFlags{bench: b}
	c.cmd = bench.Command("compare", "Compare two runs' --output-json files metric by metric, with significance tests on their requests; exit 3 on a significant regression beyond --max-regression (--output-json writes the comparison).")
	c.cmd.Arg("base", "The reference run's --output-json file.").Required().StringVar(&c.base)
	c.cmd.Arg("new", "The run to check against it.").Required().StringVar(&c.new)
	c.cmd.Flag("max-regression", "Regressions that fail the comparison (exit 3) when significant: key:threshold, comma-separated; % for relative, else the metric's unit (percentage points for goodput, failed_percent), e.g. 'p99_ttft_ms:10%,goodput:1'.").StringVar(&c.maxRegression)
	c.cmd.Flag("alpha", "Significance level of the tests.").Default("0.05").Float64Var(&c.alpha)
	c.cmd.Flag("force", "Compare runs whose workloads differ (prompt/output lengths, dataset, endpoint, load, SLOs).").BoolVar(&c.force)
	return c
}

func (c *compareFlags) run() int {
	code, err := c.main(os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "llm-prober bench compare:", err)
	}
	return code
}

// main compares: exit 2 on bad flags, unreadable files or different
// workloads (without --force), 3 on a significant regression, else 0.
func (c *compareFlags) main(out, log io.Writer) (int, error) {
	ts, err := loadtest.ParseThresholds(c.maxRegression)
	if err != nil {
		return 2, err
	}
	if !(c.alpha > 0 && c.alpha < 1) || math.IsNaN(c.alpha) {
		return 2, fmt.Errorf("--alpha %g: want a level between 0 and 1, e.g. 0.05", c.alpha)
	}
	base, err := loadtest.ReadRunFile(c.base)
	if err != nil {
		return 2, err
	}
	nw, err := loadtest.ReadRunFile(c.new)
	if err != nil {
		return 2, err
	}
	cmp := loadtest.Compare(base, nw, c.alpha, ts)
	if len(cmp.WorkloadDiffs) > 0 && !c.force {
		return 2, fmt.Errorf("the runs' workloads differ, so their numbers do not compare (--force to compare anyway):\n  %s",
			strings.Join(cmp.WorkloadDiffs, "\n  "))
	}
	cmp.Forced = len(cmp.WorkloadDiffs) > 0
	for _, t := range ts {
		if !base.Has(t.Key) || !nw.Has(t.Key) {
			return 2, fmt.Errorf("--max-regression %s: the runs lack this metric (goodput needs --goodput SLOs; a percentile needs --percentiles with it)", t.Key)
		}
	}
	cmp.WriteText(out)
	if path := c.bench.OutputJSON; path != "" {
		b, err := json.MarshalIndent(cmp, "", "  ")
		if err != nil {
			return 1, err
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			return 1, err
		}
		fmt.Fprintf(log, "wrote %s\n", path)
	}
	if len(cmp.Regressions) > 0 {
		return exitFailOn, errors.New("significant regression beyond --max-regression")
	}
	return 0, nil
}
