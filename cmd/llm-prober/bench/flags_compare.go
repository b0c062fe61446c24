package bench

import (
	"io"
	"os"

	"github.com/alecthomas/kingpin/v2"
)

// compareFlags are the flags of `llm-prober bench compare`, set into the
// CompareConfig that runs it.
type compareFlags struct {
	cmd *kingpin.CmdClause
	CompareConfig
}

func newBenchCompareCmd(parent *kingpin.CmdClause) *compareFlags {
	c := &compareFlags{}
	c.cmd = parent.Command("compare", "Compare two runs' --output-json files metric by metric, with significance tests on their requests; exit 3 on a significant regression beyond --max-regression (--output-json writes the comparison).")
	c.cmd.Arg("base", "The reference run's --output-json file.").Required().StringVar(&c.Base)
	c.cmd.Arg("new", "The run to check against it.").Required().StringVar(&c.New)
	c.cmd.Flag("max-regression", "Regressions that fail the comparison (exit 3) when significant: key:threshold, comma-separated; % for relative, else the metric's unit (percentage points for the keys goodput, i.e. SLO attainment, and failed_percent), e.g. 'p99_ttft_ms:10%,goodput:1'.").StringVar(&c.MaxRegression)
	c.cmd.Flag("alpha", "Significance level of the tests.").Default("0.05").Float64Var(&c.Alpha)
	c.cmd.Flag("force", "Compare runs whose workloads differ (prompt/output lengths, dataset, endpoint, load, SLOs).").BoolVar(&c.Force)
	c.cmd.Flag("output-json", "Write the comparison to this JSON file.").StringVar(&c.OutputJSON)
	c.cmd.Flag("report", "Write the comparison as one self-contained HTML page (bench --report's): the table and the two runs' latency CDFs one over the other.").StringVar(&c.Report)
	return c
}

func (c *compareFlags) run() int {
	code, err := c.main(os.Stdout, os.Stderr)
	if err != nil {
		printError(os.Stderr, "llm-prober bench compare:", err)
	}
	return code
}

// main compares the files named by the arguments.
func (c *compareFlags) main(out, log io.Writer) (int, error) {
	return RunCompare(&c.CompareConfig, out, log)
}
