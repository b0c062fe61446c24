package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/llm-prober/llm-prober/cmd/llm-prober/bench/exitcode"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/merge"
	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// How a bench invocation ends besides 0 (success): exitcode's codes.
const (
	ExitError    = exitcode.Error
	ExitBadInput = exitcode.BadInput
	ExitFailOn   = exitcode.FailOn
	ExitFailed   = exitcode.Failed
)

// errNotStarted: an interrupt came before the run sent its first request
// (while prompts were sized or calibrated, or the prefix cache reset), so
// there is nothing to report: an empty report would read as a run of no
// requests.
var errNotStarted = errors.New("interrupted before the run started: no request was sent, so there is no report and no result file")

// benchEnv is what every run of one invocation shares.
type benchEnv struct {
	b        *Config
	target   *config.Target
	client   *http.Client
	workload workload.Workload
	sizing   *workload.Sizing
	slo      summary.SLO
	ps       []float64
	conds    []summary.Condition
	// From the flags, parsed and checked before anything runs.
	rate        float64               // --request-rate
	rates       []float64             // --rates
	temperature *float64              // --temperature, if given
	out, log    io.Writer             // through textfmt.SafeWriter: server and file text is printed escaped
	rawLog      io.Writer             // the progress bar's own control sequences
	vllm        *bool                 // the target is vLLM (takes cache_salt); nil until checked
	seedRandom  bool                  // no --seed: drawSeed drew b.Seed
	csv         *report.CSVOut        // --output-csv
	runName     string                // --num-runs: the run, the CSV's point
	live        *report.Live          // --web.listen-address
	meta        *serverwatch.Metadata // server and client, in every run's JSON
	extra       *serverwatch.ExtraSet // --extra-metrics-url
	shard       shard.Shard           // --shard: this process's part of the run
	startAt     time.Time             // --start-at, zero without it
	otlp        *otlpPush             // --otlp-metrics.endpoint
}

// benchResult is one run with its analysis.
type benchResult struct {
	run     *loadtest.Run
	fresh   workload.Freshness // how its prompts were kept out of the prefix cache
	report  *summary.Report
	server  serverwatch.ServerReport
	verdict summary.Verdict
	view    *report.RunView          // --report's, nil without it
	extra   *serverwatch.ExtraReport // --extra-metrics-url
}

// Run runs what b asks for (one run, --num-runs repeats, a sweep, or
// a capacity plan alone), writes the reports to out and progress and notes
// to log, and says how it ended: 0 or one of the Exit codes, with the
// error behind it, if any.
func Run(ctx context.Context, b *Config, out, log io.Writer) (int, error) {
	if b.Servers.active() {
		return runServerSweep(ctx, b, out, log)
	}
	rawLog := log
	out, log = textfmt.NewSafeWriter(out), textfmt.NewSafeWriter(log)
	env := &benchEnv{b: b, out: out, log: log, rawLog: rawLog}
	if err := env.parseFlags(); err != nil {
		return ExitBadInput, err
	}
	if err := b.checkReport(); err != nil {
		return ExitBadInput, err
	}
	if err := b.checkNumRuns(); err != nil {
		return ExitBadInput, err
	}
	otlp, err := b.otlpSection()
	if err != nil {
		return ExitBadInput, err
	}
	extra, err := serverwatch.NewExtraSet(b.ExtraURLs, b.ExtraMatch)
	if err != nil {
		return ExitBadInput, err
	}
	env.extra = extra
	if err := env.parseShard(); err != nil {
		return ExitBadInput, err
	}
	if b.KneeRate > 0 && b.URL == "" && b.Target == "" {
		return b.planOnly(env)
	}
	if err := env.deriveWorkload(ctx); err != nil {
		return exitFor(err), err
	}
	env.drawSeed() // after the derived workload, which may ask for sharing
	if env.target, env.client, err = b.benchTarget(ctx); err != nil {
		return exitFor(err), err
	}
	defer env.client.CloseIdleConnections()
	if env.otlp, err = env.startOTLP(ctx, otlp); err != nil {
		return ExitError, err
	}
	defer env.otlp.stop(env)
	if err := env.startLive(); err != nil {
		return ExitError, err
	}
	defer env.stopLive()
	env.collectMetadata(ctx)
	if env.workload, env.sizing, err = b.workload(ctx, env.client, env.target, log); err != nil {
		if ctx.Err() != nil {
			return ExitError, fmt.Errorf("%w (it came while prompts were sized: %v)", errNotStarted, err)
		}
		return exitFor(err), err
	}
	fmt.Fprintf(log, "target %s, model %s, %s; %s\n", env.target.RedactedURL(), env.target.Model, env.workload.Describe(), env.sizing.Describe())
	if err := env.openCSV(); err != nil {
		return ExitError, err
	}
	defer env.closeCSV()
	if b.Sweep || b.Rates != "" {
		return env.sweep(ctx)
	}
	if b.NumRuns > 1 {
		return env.repeat(ctx)
	}
	res, err := env.execute(ctx, env.rate, b.Concurrency, "")
	if err != nil {
		return ExitError, err
	}
	fmt.Fprintf(log, "prompts: %s\n", res.fresh)
	report.WriteText(res.report, out)
	report.WriteUncertainty(res.report, out)
	report.WriteServer(&res.server, out, res.verdict)
	env.writeExtra(res)
	if b.OutputJSON != "" {
		fmt.Fprintf(log, "wrote %s\n", b.OutputJSON)
	}
	if err := env.writeReport(&report.HTMLReport{Runs: []*report.RunView{res.view}}); err != nil {
		return ExitError, err
	}
	if b.PeakRPS > 0 || b.DailyRequests > 0 {
		fmt.Fprintln(log, "a capacity plan needs a knee: add --sweep, or --knee-rate from an earlier sweep")
	}
	if res.run.Interrupted {
		return ExitError, errors.New("interrupted; the report covers the requests that finished, and counts those cut off as cancelled")
	}
	if code := env.failOn(res.report); code != 0 {
		return code, nil
	}
	if failing, why := res.report.Failing(); failing {
		return ExitFailed, errors.New(why)
	}
	return 0, nil
}

// options are the load settings of one run at rate (or concurrency).
func (env *benchEnv) options(rate float64, concurrency int) loadtest.Options {
	b := env.b
	wn, wd, _ := b.warmupSpec()
	o := loadtest.Options{Target: env.target, API: config.API(b.API), Client: env.client, Workload: env.workload,
		NumPrompts: b.NumPrompts, Duration: b.Duration, Rate: rate, Burstiness: b.Burstiness,
		MaxConcurrency: b.MaxConcurrency, Concurrency: concurrency, WarmupRequests: wn, WarmupDuration: wd,
		Seed: b.Seed, Timeout: b.Timeout, IdleTimeout: b.IdleTimeout, IgnoreEOS: b.IgnoreEOS, NoContinuousUsage: !b.ContinuousUsage,
		Temperature: env.temperature, UserAgent: "llm-prober-bench"}
	if b.Duration > 0 {
		o.NumPrompts = 0
	}
	o.Shard, o.StartAt = env.shard, env.startAt
	b.Shape.apply(&o, env.workload, b.NumPromptsSet)
	return o
}

// execute runs once at rate (open loop) or concurrency (closed loop),
// scraping the server around it.
func (env *benchEnv) execute(ctx context.Context, rate float64, concurrency int, label string) (*benchResult, error) {
	o := env.options(rate, concurrency)
	f := env.freshen(ctx, &o, 0)
	return env.executeWith(ctx, o, label, env.b.OutputJSON, "", f)
}

// executeWith runs o; with jsonPath, it writes the aggregate and every
// request there (a sweep point's kind, if any, and bottleneck first).
func (env *benchEnv) executeWith(ctx context.Context, o loadtest.Options, label, jsonPath, kind string, f workload.Freshness) (*benchResult, error) {
	b := env.b
	if mode := b.Progress; mode != "off" {
		pp := &report.ProgressPrinter{W: env.rawLog, Terminal: mode == "bar" || (mode == "auto" && b.LogIsTerminal), Label: label}
		o.Progress = pp.Print
	}
	var jo *resultfile.JSONOut
	if jsonPath != "" {
		var err error
		if jo, err = resultfile.NewJSONOut(); err != nil {
			return nil, err
		}
		defer jo.Close()
		jo.GeneratedTexts = b.SaveTexts
		o.OnResult = jo.Add
	}
	env.withCSV(&o, kind)
	env.otlp.attach(&o)
	env.live.Attach(&o)
	var w *serverwatch.Watcher
	if b.ServerMetrics {
		w = serverwatch.Watch(ctx, env.client, env.target, b.MetricsInterval)
	}
	if ctx.Err() != nil { // e.g. during the prefix-cache reset: nothing to report
		if w != nil {
			w.Stop(context.Background())
		}
		return nil, errNotStarted
	}
	xw := env.extra.Watch(ctx, b.MetricsInterval)
	clk := env.clock()
	env.announce(clk)
	run, err := loadtest.Execute(ctx, o)
	extra := env.extra.Stop(xw, label)
	if err == nil {
		err = env.flushCSV()
	}
	if err != nil {
		if w != nil {
			w.Stop(context.Background())
		}
		return nil, err
	}
	res := &benchResult{run: run, fresh: f, report: summary.Summarize(run, env.slo, env.ps), extra: extra}
	if w != nil {
		// After an interrupt the last scrape gets a second, not five: the
		// user is waiting for the partial report.
		stopCtx, cancel := context.Background(), context.CancelFunc(func() {})
		if ctx.Err() != nil {
			stopCtx, cancel = context.WithTimeout(stopCtx, time.Second)
		}
		res.server = w.Stop(stopCtx)
		cancel()
	} else {
		res.server = serverwatch.ServerReport{Err: "--no-server-metrics"}
		if env.shard.Index > 0 {
			res.server.Err = "shard " + env.shard.String() + ": only shard 0 scrapes the server"
		}
	}
	summary.AttachServer(&res.server, res.report)
	res.verdict = summary.Judge(res.report, &res.server)
	env.view(res, label)
	if jo != nil {
		var head []summary.KV
		if kind != "" {
			head = []summary.KV{{Key: "kind", Value: kind}, {Key: "bottleneck", Value: res.verdict.Bottleneck}}
		}
		head = append(append(head, res.report.VLLMKeys()...),
			summary.KV{Key: "model_id", Value: env.target.Model},
			summary.KV{Key: "backend", Value: resultfile.Backend(b.API)},
			summary.KV{Key: "endpoint_type", Value: resultfile.Backend(b.API)},
			summary.KV{Key: "label", Value: resultfile.Label(b.Label)},
			summary.KV{Key: "llm_prober_prompt_sizing", Value: env.sizing.Describe()},
			summary.KV{Key: "llm_prober_prompts", Value: f},
			summary.KV{Key: "llm_prober_server", Value: res.server},
			summary.KV{Key: "llm_prober_verdict", Value: res.verdict},
			summary.KV{Key: "llm_prober_metadata", Value: env.meta})
		if res.extra != nil {
			head = append(head, summary.KV{Key: "llm_prober_extra_metrics", Value: res.extra})
		}
		if env.sharded() {
			head = append(head, summary.KV{Key: merge.Key, Value: env.manifest(&o, run, res.report, clk, w != nil)})
		}
		if dw := b.Derive.derived; dw != nil {
			head = append(head, summary.KV{Key: "llm_prober_derived_workload", Value: dw})
		}
		if err := jo.Write(jsonPath, head); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// failOn checks the --fail-on conditions; ExitFailOn if any holds.
func (env *benchEnv) failOn(rep *summary.Report) int {
	lines := summary.FailOn(env.conds, rep)
	for _, l := range lines {
		fmt.Fprintln(env.log, l)
	}
	if len(lines) > 0 {
		return ExitFailOn
	}
	return 0
}
