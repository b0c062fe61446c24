package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest"
)

// Exit codes of bench besides 0: 1 a run error (or an interrupt), 2 bad
// flags, 3 a --fail-on condition held, 4 the run's failures void it (no
// request succeeded, or more than loadtest.MaxFailedShare failed).
const (
	exitFailOn = 3
	exitFailed = 4
)

// benchEnv is what every run of one invocation shares.
type benchEnv struct {
	b        *benchFlags
	target   *config.Target
	client   *http.Client
	workload loadtest.Workload
	sizing   *loadtest.Sizing
	slo      loadtest.SLO
	ps       []float64
	conds    []loadtest.Condition
	// From the flags, parsed and checked before anything runs.
	rate        float64   // --request-rate
	rates       []float64 // --rates
	temperature *float64  // --temperature, if given
	out, log    io.Writer
	vllm        *bool            // the target is vLLM (takes cache_salt); nil until checked
	csv         *loadtest.CSVOut // --output-csv
	runName     string           // --num-runs: the run, the CSV's point
	live        *loadtest.Live   // --web.listen-address
	meta        *loadtest.Metadata
	extra       *loadtest.ExtraSet // --extra-metrics-url
}

// benchResult is one run with its analysis.
type benchResult struct {
	run     *loadtest.Run
	fresh   freshness // how its prompts were kept out of the prefix cache
	report  *loadtest.Report
	server  loadtest.ServerReport
	extra   *loadtest.ExtraReport // --extra-metrics-url
	verdict loadtest.Verdict
}

func (b *benchFlags) run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	loadtest.TuneGC() // here, not in main: tests share their process
	code, err := b.main(ctx, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "llm-prober bench:", err)
	}
	return code
}

func (b *benchFlags) main(ctx context.Context, out, log io.Writer) (int, error) {
	env := &benchEnv{b: b, out: out, log: log}
	if err := env.parseFlags(); err != nil {
		return 2, err
	}
	if err := b.checkNumRuns(); err != nil {
		return 2, err
	}
	if err := env.parseExtra(); err != nil {
		return 2, err
	}
	var err error
	if b.kneeRate > 0 && b.url == "" && b.target == "" {
		return b.planOnly(env)
	}
	if env.target, env.client, err = b.benchTarget(ctx); err != nil {
		return 1, err
	}
	defer env.client.CloseIdleConnections()
	if err := env.startLive(); err != nil {
		return 1, err
	}
	defer env.stopLive()
	env.collectMetadata(ctx)
	if env.workload, env.sizing, err = b.workload(ctx, env.client, env.target, log); err != nil {
		return 1, err
	}
	fmt.Fprintf(log, "target %s, model %s, %s; %s\n", env.target.RedactedURL(), env.target.Model, env.workload.Describe(), env.sizing.Describe())
	if err := env.openCSV(); err != nil {
		return 1, err
	}
	defer env.closeCSV()
	if b.sweep || b.rates != "" {
		return env.sweep(ctx)
	}
	if b.numRuns > 1 {
		return env.repeat(ctx)
	}
	res, err := env.execute(ctx, env.rate, b.concurrency, "")
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(log, "prompts: %s\n", res.fresh)
	res.report.WriteText(out)
	res.report.WriteUncertainty(out)
	res.server.WriteText(out, res.verdict)
	env.writeExtra(res)
	if b.outputJSON != "" {
		fmt.Fprintf(log, "wrote %s\n", b.outputJSON)
	}
	if b.peakRPS > 0 || b.dailyRequests > 0 {
		fmt.Fprintln(log, "a capacity plan needs a knee: add --sweep, or --knee-rate from an earlier sweep")
	}
	if res.run.Interrupted {
		return 1, errors.New("interrupted; the report covers the requests that finished, and counts those cut off as cancelled")
	}
	if code := env.failOn(res.report); code != 0 {
		return code, nil
	}
	if failing, why := res.report.Failing(); failing {
		return exitFailed, errors.New(why)
	}
	return 0, nil
}

// options are the load settings of one run at rate (or concurrency).
func (env *benchEnv) options(rate float64, concurrency int) loadtest.Options {
	b := env.b
	wn, wd, _ := b.warmupSpec()
	o := loadtest.Options{Target: env.target, API: config.API(b.api), Client: env.client, Workload: env.workload,
		NumPrompts: b.numPrompts, Duration: b.duration, Rate: rate, Burstiness: b.burstiness,
		MaxConcurrency: b.maxConc, Concurrency: concurrency, WarmupRequests: wn, WarmupDuration: wd,
		Seed: b.seed, Timeout: b.timeout, IdleTimeout: b.idleTimeout, IgnoreEOS: b.ignoreEOS, NoContinuousUsage: !b.continuousUsage,
		Temperature: env.temperature, UserAgent: "llm-prober-bench"}
	if b.duration > 0 {
		o.NumPrompts = 0
	}
	return o
}

// execute runs once at rate (open loop) or concurrency (closed loop),
// scraping the server around it.
func (env *benchEnv) execute(ctx context.Context, rate float64, concurrency int, label string) (*benchResult, error) {
	o := env.options(rate, concurrency)
	f := env.freshen(ctx, &o, 0)
	return env.executeWith(ctx, o, label, env.b.outputJSON, "", f)
}

// executeWith runs o; with jsonPath, it writes the aggregate and every
// request there (a sweep point's kind, if any, and bottleneck first).
func (env *benchEnv) executeWith(ctx context.Context, o loadtest.Options, label, jsonPath, kind string, f freshness) (*benchResult, error) {
	b := env.b
	if mode := b.progress; mode != "off" {
		pp := &loadtest.ProgressPrinter{W: env.log, Terminal: mode == "bar" || (mode == "auto" && isTerminal(os.Stderr)), Label: label}
		o.Progress = pp.Print
	}
	var jo *loadtest.JSONOut
	if jsonPath != "" {
		var err error
		if jo, err = loadtest.NewJSONOut(); err != nil {
			return nil, err
		}
		defer jo.Close()
		jo.GeneratedTexts = b.saveTexts
		o.OnResult = jo.Add
	}
	env.withCSV(&o, kind)
	env.live.Attach(&o)
	var w *loadtest.Watcher
	if b.serverMetrics {
		w = loadtest.Watch(ctx, env.client, env.target, b.metricsInterval)
	}
	xw := env.extra.Watch(ctx, b.metricsInterval)
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
	res := &benchResult{run: run, fresh: f, report: loadtest.Summarize(run, env.slo, env.ps), extra: extra}
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
		res.server = loadtest.ServerReport{Err: "--no-server-metrics"}
	}
	res.server.Attach(res.report)
	res.verdict = loadtest.Judge(res.report, &res.server)
	if jo != nil {
		var head []loadtest.KV
		if kind != "" {
			head = []loadtest.KV{{Key: "kind", Value: kind}, {Key: "bottleneck", Value: res.verdict.Bottleneck}}
		}
		head = append(append(head, res.report.VLLMKeys()...),
			loadtest.KV{Key: "model_id", Value: env.target.Model},
			loadtest.KV{Key: "backend", Value: vllmBackend(b.api)},
			loadtest.KV{Key: "endpoint_type", Value: vllmBackend(b.api)},
			loadtest.KV{Key: "label", Value: nilIfEmpty(b.label)},
			loadtest.KV{Key: "llm_prober_prompt_sizing", Value: env.sizing.Describe()},
			loadtest.KV{Key: "llm_prober_prompts", Value: f},
			loadtest.KV{Key: "llm_prober_server", Value: res.server},
			loadtest.KV{Key: "llm_prober_verdict", Value: res.verdict},
			loadtest.KV{Key: "llm_prober_metadata", Value: env.meta})
		if res.extra != nil {
			head = append(head, loadtest.KV{Key: "llm_prober_extra_metrics", Value: res.extra})
		}
		if err := jo.Write(jsonPath, head); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// failOn checks the --fail-on conditions; exitFailOn if any holds.
func (env *benchEnv) failOn(rep *loadtest.Report) int {
	code := 0
	for _, c := range env.conds {
		holds, got, err := c.Check(rep)
		switch {
		case err != nil:
			fmt.Fprintln(env.log, err)
			code = exitFailOn
		case holds:
			basis := ""
			if rep.Basis == loadtest.BasisSchedule {
				basis = "; latency and goodput counted from the schedule"
			}
			fmt.Fprintf(env.log, "fail-on %s holds (%s = %g%s)\n", c.Src, c.Key, got, basis)
			code = exitFailOn
		}
	}
	return code
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// vllmBackend is vllm bench's name for the endpoint used.
func vllmBackend(api string) string {
	if api == "completions" {
		return "openai"
	}
	return "openai-chat"
}

// nilIfEmpty is s, or JSON null when empty (vllm bench's unset --label).
func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
