package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/llm-prober/llm-prober/cmd/llm-prober/bench/mergecmd"
	"github.com/llm-prober/llm-prober/cmd/llm-prober/internal/strictflag"
	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/summary"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"
)

// Command are the flags of `llm-prober bench`, set into the
// Config that runs it; names follow vllm bench serve where
// it has one.
type Command struct {
	cmd, runCmd *kingpin.CmdClause
	compare     *compareFlags
	merge       *mergecmd.Command

	Config
}

// NewCommand registers `llm-prober bench` on app.
func NewCommand(app *kingpin.Application) *Command {
	b := &Command{}
	c := app.Command("bench", "Load-test a server like vllm bench serve: one run, a rate sweep to the saturation knee (--sweep), and a capacity plan. "+
		"Exit codes: 0 success; 1 a run error or an interrupt (the partial report is still printed and written); 2 a bad flag, or a bad trace, dataset or workload file; "+
		fmt.Sprintf("3 a --fail-on condition held; 4 no request succeeded, or more than %g%% of a single run's requests failed, or no rate of a sweep met the knee's SLO attainment, or every rate did (the knee is above the top rate: a lower bound) (even without --fail-on).", 100*summary.MaxFailedShare))
	b.cmd = c
	// The run's flags are those of run, bench's default subcommand, not
	// bench's: `bench [flags]` still runs it (kingpin enters the default
	// subcommand at a flag its parent lacks), while `bench compare` neither
	// shows nor accepts them. bench's help lists them (cmd/llm-prober/usage.go).
	b.runCmd = c.Command("run", "Run the benchmark (what `bench` alone does).").Default()
	c = b.runCmd
	c.Flag("url", "Base URL of the server (e.g. http://localhost:8000); or use --config.file and --target.").StringVar(&b.URL)
	c.Flag("model", "Model name (default: the first of /v1/models, or the target's).").StringVar(&b.Model)
	c.Flag("api", "Endpoint: chat (/v1/chat/completions) or completions (/v1/completions).").Default("chat").EnumVar(&b.API, "chat", "completions")
	c.Flag("config.file", "Prober configuration file holding --target (its URL, model, auth, TLS).").StringVar(&b.ConfigFile)
	c.Flag("target", "Name of a target in --config.file.").StringVar(&b.Target)
	c.Flag("api-key-file", "File holding a bearer token for --url (else $OPENAI_API_KEY if set).").StringVar(&b.APIKeyFile)

	c.Flag("request-rate", "Open-loop arrival rate in requests/s, or inf to send all at once.").Default("inf").IsSetByUser(&b.Derive.RateSet).StringVar(&b.Rate)
	c.Flag("burstiness", "Gamma shape of the arrival gaps: 1 is Poisson, lower burstier, higher more regular.").Default("1").IsSetByUser(&b.Derive.BurstinessSet).Float64Var(&b.Burstiness)
	c.Flag("max-concurrency", "Most requests in flight in an open-loop run (0: no cap).").Default("0").IntVar(&b.MaxConcurrency)
	c.Flag("concurrency", "Closed loop: this many users, each sending its next request when the last ends (overrides --request-rate).").Default("0").IntVar(&b.Concurrency)
	c.Flag("num-prompts", "Measured requests (ignored with --duration).").Default("1000").IsSetByUser(&b.NumPromptsSet).IntVar(&b.NumPrompts)
	c.Flag("num-runs", "Repeat the run this many times, each with the next --seed (fresh prompts and arrivals); report each metric's mean and 95% confidence interval.").Default("1").IntVar(&b.NumRuns)
	c.Flag("duration", "Send for this long instead of --num-prompts; requests still in flight at its end are cut off and counted as cancelled.").DurationVar(&b.Duration)
	c.Flag("warmup", "Discarded warm-up: a number of requests (e.g. 20) or a duration (e.g. 10s); at --request-rate inf at most --max-concurrency (else 8) at a time.").Default("0").StringVar(&b.Warmup)

	c.Flag("dataset-name", "Workload: random (synthetic), sharegpt, jsonl, trace (replay a Mooncake JSONL or BurstGPT CSV trace at its timestamps), or conversations (multi-turn sessions: ShareGPT's every turn with --dataset-path, else synthetic --turns).").Default("random").EnumVar(&b.Dataset, "random", "sharegpt", "jsonl", "trace", "conversations")
	c.Flag("dataset-path", "ShareGPT JSON, JSONL file ({\"prompt\":…, \"output_tokens\":…} a line) or trace file.").StringVar(&b.DatasetPath)
	addShapeFlags(c, &b.Shape)
	c.Flag("input-tokens", "Synthetic prompt length in tokens.").Default("1024").IsSetByUser(&b.Derive.InputTokensSet).IntVar(&b.InputTokens)
	c.Flag("output-tokens", "Output length in tokens (datasets: overrides theirs when > 0).").Default("128").IsSetByUser(&b.OutputTokensSet).IntVar(&b.OutputTokens)
	c.Flag("range-ratio", "Synthetic lengths uniform in [n(1-r), n(1+r)].").Default("0").IsSetByUser(&b.Derive.RangeRatioSet).Float64Var(&b.RangeRatio)
	c.Flag("prefix-tokens", "Tokens of a prefix shared by every synthetic prompt (exercises the prefix cache).").Default("0").IsSetByUser(&b.Derive.PrefixTokensSet).IntVar(&b.PrefixTokens)
	c.Flag("fresh-prompts", "Keep every run (every sweep point) out of the prefix cache: a random seed per invocation unless --seed is given, a new seed per point (seed + k), a new cache_salt on vLLM, and POST /reset_prefix_cache before each run where the server offers it (vLLM with VLLM_SERVER_DEV_MODE=1). Off with --prefix-tokens, which asks for sharing.").Default("true").BoolVar(&b.FreshPrompts)
	c.Flag("seed", "Seed of prompts, lengths and arrivals: the same seed sends the same run. Without it, each run draws one at random (printed, and in the JSON) so that no run re-sends an earlier run's prompts; 0 with --no-fresh-prompts or --prefix-tokens.").Default("0").IsSetByUser(&b.SeedSet).Int64Var(&b.Seed)
	c.Flag("ignore-eos", "Pin output lengths with ignore_eos and min_tokens (--no-ignore-eos for servers that reject them).").Default("true").BoolVar(&b.IgnoreEOS)
	c.Flag("continuous-usage", "Ask for per-chunk usage, stream_options.continuous_usage_stats (--no-continuous-usage for servers that reject it).").Default("true").BoolVar(&b.ContinuousUsage)
	c.Flag("temperature", "Sampling temperature (default: the server's).").StringVar(&b.Temperature)
	c.Flag("timeout", "Per-request timeout; also bounds each calibration request, and each /tokenize, /props and /v1/models call of prompt sizing (30s at most).").Default("10m").DurationVar(&b.Timeout)
	c.Flag("idle-timeout", "Fail a request that receives nothing (no headers, no body bytes) for this long: a stalled server fails by its phase (timeout_first_token, timeout_decode) instead of holding the run for --timeout.").Default("2m").DurationVar(&b.IdleTimeout)

	c.Flag("goodput", "SLOs a good request meets, vllm bench syntax in ms, extended: \"ttft:500 tpot:50 e2el:3000 max_itl:1000\"; ttft:200+0.5/tok adds 0.5 ms per input token.").StringVar(&b.Goodput)
	c.Flag("percentiles", "Percentiles to report.").Default("50,90,95,99,99.9").StringVar(&b.Percentiles)
	c.Flag("output-json", "Write the aggregate and every request to this JSON file (vllm bench key names).").StringVar(&b.OutputJSON)
	c.Flag("label", "A name for the run, written as \"label\" in --output-json (vllm bench's --label).").StringVar(&b.Label)
	c.Flag("save-generated-texts", "Add vllm bench's generated_texts (every measured request's output) to --output-json.").BoolVar(&b.SaveTexts)
	c.Flag("output-csv", "Write every request to this CSV file, one row each as it finishes (a sweep's points in one file, with point and rate columns).").StringVar(&b.OutputCSV)
	c.Flag("fail-on", "Exit 3 if this holds, e.g. 'attainment<99' (SLO attainment %, needs --goodput; 'goodput<99' is the same), 'p99_max_itl>1000', 'p99_ttft>500' (p99 in --percentiles), 'failed>0', any-failure (repeatable; keys checked before the run).").StringsVar(&b.FailOn)
	c.Flag("progress", "Progress output on stderr: auto (a bar on a terminal, else lines), bar, lines, off.").Default("auto").EnumVar(&b.Progress, "auto", "bar", "lines", "off")
	c.Flag("server-metrics", "Scrape the server's /metrics before, during and after the run (--no-server-metrics to skip).").Default("true").BoolVar(&b.ServerMetrics)
	c.Flag("metrics-interval", "How often to scrape the server's /metrics (and --extra-metrics-url) during the run.").Default("1s").DurationVar(&b.MetricsInterval)
	c.Flag("extra-metrics-url", "Also scrape this exporter during every run (repeatable; e.g. a DCGM exporter's http://host:9400/metrics) and report its GPU utilisation, memory used and power (mean, min, max) per run and sweep point; its failures are reported, never fatal.").StringsVar(&b.ExtraURLs)
	c.Flag("otlp-metrics.endpoint", "Push every measured request as OpenTelemetry GenAI client metrics (gen_ai.client.*) to this OTLP/HTTP metrics URL (e.g. http://otel-collector:4318/v1/metrics); else the otlp_metrics section of --config.file, if any. Never fatal.").StringVar(&b.OTLP.Endpoint)
	c.Flag("otlp-metrics.interval", "How often to push during a run (1s–1h; default the config's, else 15s); the end of the run always pushes.").DurationVar(&b.OTLP.Interval)
	c.Flag("extra-metrics-match", "Families of --extra-metrics-url to report besides DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_POWER_USAGE: a regex matching whole names (repeatable).").StringsVar(&b.ExtraMatch)

	c.Flag("sweep", "Sweep: a synchronous baseline, a max-throughput run, then rates in between; report the knee.").BoolVar(&b.Sweep)
	c.Flag("rates", "Sweep these rates (req/s, comma-separated) instead of the automatic ones.").StringVar(&b.Rates)
	c.Flag("sweep-steps", "Rates between the baseline and the maximum.").Default("6").IntVar(&b.SweepSteps)
	c.Flag("sweep-refine", "Bisection steps between the last good and first bad rate.").Default("2").IntVar(&b.SweepRefine)
	c.Flag("min-samples", "Fewest measured requests per open-loop sweep point (--num-prompts or --duration are raised to reach it; the synchronous baseline excepted): p99 needs about 1,000 to be stable (10 beyond it). 0: as --num-prompts or --duration say.").Default("1000").IntVar(&b.MinSamples)
	c.Flag("knee-goodput", "The knee is the highest rate whose SLO attainment (% of requests meeting every SLO) is at least this.").Default("99").Float64Var(&b.KneeGoodput)
	c.Flag("curve", "Write the throughput-latency curve (SVG) of a sweep here.").StringVar(&b.Curve)
	c.Flag("report", "Write a self-contained HTML report here: the summary, latency histograms and CDFs, a per-request timeline, throughput and the server's metrics over time; for a sweep also the curve, each point's p99 interval and the plan.").StringVar(&b.Report)

	c.Flag("daily-requests", "Capacity plan: requests per day to serve (or --peak-rps, not both).").Float64Var(&b.DailyRequests)
	c.Flag("peak-rps", "Capacity plan: peak requests/s to serve (instead of --daily-requests; giving both is an error).").Float64Var(&b.PeakRPS)
	c.Flag("peak-to-average", "Capacity plan: peak rate over the daily average, at least 1 (1: peak = daily / 86,400, the seed's formula).").Default("1").Float64Var(&b.PeakToAverage)
	c.Flag("headroom", "Capacity plan: spare capacity factor.").Default("2").Float64Var(&b.Headroom)
	strictflag.Int(c.Flag("gpus-per-replica", "Capacity plan: GPUs per server replica (tensor/pipeline parallel; a whole number).").Default("1"), &b.GPUsPerReplica)
	c.Flag("knee-rate", "Capacity plan without running: the knee rate (req/s) of one replica, e.g. from an earlier sweep.").Float64Var(&b.KneeRate)
	addDeriveFlags(c, &b.Derive)
	addShardFlags(c, &b.Shard)
	addServerSweepFlags(c, &b.Servers)
	b.Web = kingpinflag.AddFlags(c, "")
	b.compare = newBenchCompareCmd(b.cmd)
	b.merge = mergecmd.NewCommand(b.cmd)
	return b
}

// Handles reports whether the parsed command name is bench's.
func (b *Command) Handles(cmd string) bool {
	switch cmd {
	case b.cmd.FullCommand(), b.runCmd.FullCommand(), b.compare.cmd.FullCommand(), b.merge.FullCommand():
		return true
	}
	return false
}

// Execute runs the parsed bench command (a run, compare or merge) and returns
// the process's exit code.
func (b *Command) Execute(cmd string) int {
	switch cmd {
	case b.compare.cmd.FullCommand():
		return b.compare.run()
	case b.merge.FullCommand():
		return b.merge.Run()
	}
	return b.run()
}

func (b *Command) run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	loadtest.TuneGC() // here, not in main: tests share their process
	code, err := b.main(ctx, os.Stdout, os.Stderr)
	if err != nil {
		printError(os.Stderr, "llm-prober bench:", err)
	}
	return code
}

// printError prints err on one line after prefix: an error may quote a
// server's answer or a file, so it is escaped (textfmt.Safe).
func printError(w io.Writer, prefix string, err error) {
	fmt.Fprintln(w, prefix, textfmt.Safe(err.Error()))
}

// main runs the benchmark the flags describe, reporting to out and log.
func (b *Command) main(ctx context.Context, out, log io.Writer) (int, error) {
	b.LogIsTerminal = isTerminal(log)
	b.Version = version.Info()
	return Run(ctx, &b.Config, out, log)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
