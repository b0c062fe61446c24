package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/compare"
	"github.com/llm-prober/llm-prober/loadtest/report"
)

// CompareConfig is one `llm-prober bench compare`: two runs'
// --output-json files and how to judge the new against the base.
type CompareConfig struct {
	Base, New     string  // the files
	MaxRegression string  // --max-regression: key:threshold, comma-separated
	Alpha         float64 // --alpha: the tests' significance level
	Force         bool    // --force: compare different workloads
	OutputJSON    string  // --output-json: the comparison, if set
	Report        string  // --report: the comparison as an HTML page, if set
}

// RunCompare compares, writes the table to out and notes to log, and says
// how it ended: ExitBadInput on bad settings, unreadable files or
// different workloads (without Force), ExitFailOn on a significant
// regression beyond MaxRegression, ExitError if the comparison cannot be
// written, else 0.
func RunCompare(c *CompareConfig, out, log io.Writer) (int, error) {
	out, log = textfmt.NewSafeWriter(out), textfmt.NewSafeWriter(log)
	ts, err := compare.ParseThresholds(c.MaxRegression)
	if err != nil {
		return ExitBadInput, err
	}
	if !(c.Alpha > 0 && c.Alpha < 1) || math.IsNaN(c.Alpha) {
		return ExitBadInput, fmt.Errorf("--alpha %g: want a level between 0 and 1, e.g. 0.05", c.Alpha)
	}
	if err := (&Config{Report: c.Report}).checkReport(); err != nil {
		return ExitBadInput, err
	}
	base, err := compare.Load(c.Base)
	if err != nil {
		return ExitBadInput, err
	}
	nw, err := compare.Load(c.New)
	if err != nil {
		return ExitBadInput, err
	}
	cmp, err := compare.CompareInputs(base, nw, c.Alpha, ts)
	if err != nil {
		return ExitBadInput, fmt.Errorf("%s vs %s: %w", c.Base, c.New, err)
	}
	if len(cmp.WorkloadDiffs) > 0 && !c.Force {
		return ExitBadInput, fmt.Errorf("the runs' workloads differ, so their numbers do not compare (--force to compare anyway):\n  %s",
			strings.Join(cmp.WorkloadDiffs, "\n  "))
	}
	cmp.Forced = len(cmp.WorkloadDiffs) > 0
	for _, t := range ts {
		if !base.Has(t.Key) || !nw.Has(t.Key) {
			return ExitBadInput, fmt.Errorf("--max-regression %s: the runs lack this metric (goodput needs --goodput SLOs; a percentile needs --percentiles with it)", t.Key)
		}
	}
	cmp.WriteText(out)
	if path := c.OutputJSON; path != "" {
		b, err := json.MarshalIndent(cmp, "", "  ")
		if err != nil {
			return ExitError, err
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(log, "wrote %s\n", path)
	}
	if path := c.Report; path != "" {
		h := &report.HTMLReport{Title: "bench compare: " + filepath.Base(c.New) + " against " + filepath.Base(c.Base),
			Compare: &report.CompareView{Comparison: cmp, Base: base.Run, New: nw.Run}}
		if err := report.WriteHTMLFile(path, h); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(log, "wrote %s\n", path)
	}
	if len(cmp.Regressions) > 0 {
		return ExitFailOn, errors.New("significant regression beyond --max-regression")
	}
	return 0, nil
}
