package bench

import (
	"time"

	"github.com/alecthomas/kingpin/v2"
)

// ServerSweepConfig are the flags of a configuration sweep: the server
// bench starts (or the command that reconfigures one it does not), the
// configurations, and how the loop runs.
type ServerSweepConfig struct {
	Cmd          string        // --server-cmd
	ApplyCmd     string        // --server-apply-cmd
	Shell        bool          // --server-shell
	Params       []string      // --server-param, repeatable
	ConfigFile   string        // --server-config
	ReadyTimeout time.Duration // --server-ready-timeout
	StopGrace    time.Duration // --server-stop-grace
	DryRun       bool          // --dry-run
	Resume       bool          // --resume
}

func (s *ServerSweepConfig) active() bool { return s.Cmd != "" || s.ApplyCmd != "" }

func addServerSweepFlags(c *kingpin.CmdClause, s *ServerSweepConfig) {
	c.Flag("server-cmd", "Configuration sweep: start this server per configuration (in a process group of its own, stopped after its sweep), e.g. 'vllm serve MODEL --port {port} --max-num-seqs {max_num_seqs}'; {NAME} is a --server-param or --server-config parameter, {port} a free port. Run without a shell unless --server-shell. Needs --sweep or --rates.").StringVar(&s.Cmd)
	c.Flag("server-apply-cmd", "Configuration sweep of a server bench does not start (--url): run this per configuration, e.g. a kubectl command that sets the parameters and waits for the rollout; it must exit 0 within --server-ready-timeout.").StringVar(&s.ApplyCmd)
	c.Flag("server-shell", "Run --server-cmd or --server-apply-cmd with /bin/sh -c (for pipes, &&, $VARS); each value is single-quoted into it, so leave placeholders unquoted.").BoolVar(&s.Shell)
	c.Flag("server-param", "A server parameter and its values, NAME=V1,V2,… (repeatable): every combination is a configuration.").StringsVar(&s.Params)
	c.Flag("server-config", "File of configurations, one a line: [NAME:] PARAM=VALUE … (crossed with --server-param).").StringVar(&s.ConfigFile)
	c.Flag("server-ready-timeout", "Deadline for a configuration's server to answer /health and list a model on /v1/models (and for --server-apply-cmd to finish).").Default("15m").DurationVar(&s.ReadyTimeout)
	c.Flag("server-stop-grace", "Time a started server has to exit after SIGTERM before its process group is killed.").Default("30s").DurationVar(&s.StopGrace)
	c.Flag("dry-run", "Configuration sweep: print each configuration's command and exit.").BoolVar(&s.DryRun)
	c.Flag("resume", "Configuration sweep: keep the rows already in --output-json and run only the configurations missing there (and those interrupted).").BoolVar(&s.Resume)
}
