package mergecmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/internal/textfmt"
)

// Command is `llm-prober bench merge`: its flags, set into the Config
// that runs it.
type Command struct {
	cmd *kingpin.CmdClause
	Config
}

// NewCommand registers `merge` under parent (bench's command).
func NewCommand(parent *kingpin.CmdClause) *Command {
	c := &Command{}
	c.cmd = parent.Command("merge", "Merge the --output-json files of one sharded run (--shard 0/N … N-1/N), or of one sharded run per rate of a sweep, into one report, every statistic recomputed from the union of their requests as if one process had run it; exit 2 if the files are not shards of one run, 4 if a shard is missing, failed or its clock is off by more than --max-clock-offset, else bench's exit codes (3 --fail-on, 4 failures).")
	c.cmd.Arg("shards", "The shards' --output-json files.").Required().StringsVar(&c.Files)
	c.cmd.Flag("max-clock-offset", "Refuse shards whose clock may be off by more than this (|offset| + max error, from the kernel's NTP state when each started); 0 merges whatever the clocks and marks the run not comparable when one is unknown.").Default("50ms").DurationVar(&c.MaxClockOffset)
	c.cmd.Flag("timeout", "Give up reading the files after this long.").Default("10m").DurationVar(&c.Timeout)
	c.cmd.Flag("output-json", "Write the merged run's aggregate and every request to this JSON file (bench --output-json's format).").StringVar(&c.OutputJSON)
	c.cmd.Flag("output-csv", "Write every request of every shard to this CSV file, a row each (bench --output-csv's columns).").StringVar(&c.OutputCSV)
	c.cmd.Flag("report", "Write the merged run's self-contained HTML report here.").StringVar(&c.Report)
	c.cmd.Flag("rates", "Merge a sweep: the shard files hold one sharded run per rate (each the same run but for --request-rate, and --seed + point number under fresh prompts), and the merge replays bench --sweep --rates RATES over their unions: the knee, its interval and the sweep's file as one process's. Default: every rate among the files, when they hold more than one.").StringVar(&c.Rates)
	c.cmd.Flag("sweep-refine", "A merged sweep's bisection steps between the last good and first bad rate, as bench's (each needs a sharded run at its rate; the merge names it).").Default("2").IntVar(&c.SweepRefine)
	c.cmd.Flag("knee-goodput", "A merged sweep's knee: the highest rate whose SLO attainment is at least this, as bench's.").Default("99").Float64Var(&c.KneeGoodput)
	return c
}

// FullCommand is the parsed command's name when merge was asked for.
func (c *Command) FullCommand() string { return c.cmd.FullCommand() }

// Run runs the parsed command and returns the process's exit code.
func (c *Command) Run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := c.Main(ctx, os.Stdout, os.Stderr)
	if err != nil {
		// An error may quote a file: escaped (textfmt.Safe), as bench's.
		fmt.Fprintln(os.Stderr, "llm-prober bench merge:", textfmt.Safe(err.Error()))
	}
	return code
}

// Main runs the merge the flags describe, reporting to out and log.
func (c *Command) Main(ctx context.Context, out, log io.Writer) (int, error) {
	return Run(ctx, &c.Config, out, log)
}
