// Command llm-prober probes LLM inference servers with synthetic streaming
// requests and exports what it measures, and the servers' own capacity
// signals, as Prometheus metrics.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/alecthomas/kingpin/v2"
	"github.com/llm-prober/llm-prober/cmd/llm-prober/bench"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	c := newCLI()
	app, f, m, mock, benchCmd, planCmd := c.app, c.probe, c.mock, c.mockCmd, c.bench, c.plan

	cmd, err := app.Parse(helpForDefault(args, app))
	if err != nil {
		fmt.Fprintf(os.Stderr, "llm-prober: %v\n", err)
		return 2
	}
	if benchCmd.Handles(cmd) {
		return benchCmd.Execute(cmd)
	}
	switch cmd {
	case mock.FullCommand():
		return m.run()
	case planCmd.cmd.FullCommand():
		return planCmd.run()
	default:
		return f.run()
	}
}

// cli is the application with every command and flag registered; the
// input inventory test walks it.
type cli struct {
	app     *kingpin.Application
	probe   *proberFlags
	mock    *mockFlags
	mockCmd *kingpin.CmdClause
	bench   *bench.Command
	plan    *planFlags
}

func newCLI() *cli {
	app := kingpin.New("llm-prober", "Continuous synthetic prober and exporter for LLM inference servers.")
	app.Version(version.Print("llm-prober"))
	app.HelpFlag.Short('h')
	app.UsageWriter(os.Stdout) // help asked for is output, not an error
	setUsage(app)

	f := &proberFlags{}
	serve := app.Command("probe", "Run the prober (default). Other commands: see 'llm-prober help'.").Default()
	serve.Flag("config.file", "Configuration file.").Default("llm-prober.yml").StringVar(&f.configFile)
	serve.Flag("config.check", "Validate the configuration file, print the result and exit.").BoolVar(&f.configCheck)
	serve.Flag("demo", "Probe a built-in mock vLLM server with a built-in config (ignores --config.file); serves on 127.0.0.1:9775 unless --web.listen-address is given.").BoolVar(&f.demo)
	serve.Flag("web.telemetry-path", "Path under which to expose metrics.").Default("/metrics").StringVar(&f.metricsPath)
	serve.Flag("web.enable-pprof", "Serve Go profiles (heap, CPU, goroutines) under /debug/pprof/.").BoolVar(&f.enablePprof)
	serve.Flag("shutdown.timeout", "How long to wait for in-flight probes on SIGTERM.").Default("5s").DurationVar(&f.shutdownTimeout)
	serve.Flag("log.level", "Only log messages with the given severity or above: debug, info, warn, error.").Default("info").EnumVar(&f.logLevel, "debug", "info", "warn", "error")
	serve.Flag("log.format", "Output format of log messages: logfmt, json.").Default("logfmt").EnumVar(&f.logFormat, "logfmt", "json")
	serve.Flag("probe.allow-arbitrary-targets", "Let /probe?url=...&model=... probe any URL, not only configured targets (an SSRF risk: only on trusted networks). Such probes get no configured credentials.").BoolVar(&f.allowArbitraryTargets)
	serve.Flag("probe.max-concurrent", "Most /probe requests running at once; more get 429.").Default("4").IntVar(&f.probeMaxConcurrent)
	serve.Flag("shard.count", "Replicas that split the targets between them (see --shard.index).").Default("1").IntVar(&f.shardCount)
	serve.Flag("shard.index", "This replica's shard, 0 to --shard.count-1: a number, or a StatefulSet pod name whose trailing -N is used (--shard.index=$(POD_NAME)).").Default("0").StringVar(&f.shardIndex)
	serve.Flag("probe.location", "Where this prober runs (region, cluster): the location label of every probe series; overrides global.location.").StringVar(&f.location)
	f.web = kingpinflag.AddFlags(serve, ":9775")
	serve.GetFlag("web.listen-address").IsSetByUser(&f.listenSet)

	m := &mockFlags{}
	mock := app.Command("mock-vllm", mockHelp)
	m.register(mock)
	benchCmd := bench.NewCommand(app)
	planCmd := newPlanCmd(app)

	return &cli{app: app, probe: f, mock: m, mockCmd: mock, bench: benchCmd, plan: planCmd}
}

// helpForDefault turns a bare --help (no command named) into help for the
// default command, whose flags are what a user of the daemon looks for.
func helpForDefault(args []string, app *kingpin.Application) []string {
	help := false
	for _, a := range args {
		switch {
		case a == "-h" || a == "--help":
			help = true
		case a == "--":
			return args
		case !strings.HasPrefix(a, "-") && app.GetCommand(a) != nil:
			return args // a command was named: kingpin's own help for it
		}
	}
	if !help {
		return args
	}
	return []string{"help", "probe"}
}
