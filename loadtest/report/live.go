package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/llm-prober/llm-prober/internal/logadapter"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/exposition"
	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/prober"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"
)

// LiveModule is the module label of a benchmark's probe series, so that
// a dashboard can tell them from the daemon's own modules.
const LiveModule = "bench"

// Live serves a run's requests on --web.listen-address as the daemon
// serves its probes: the same prober.Metrics families (so the shipped
// dashboards show a benchmark live), plus the bench's progress. A nil
// *Live (no listener asked for) does nothing.
type Live struct {
	metrics      *prober.Metrics
	target       string // the target label: --label, else --target, else the URL's host
	model        string // the model label, escaped (it may come from the server's /v1/models)
	slo          summary.SLO
	srv          *http.Server
	served       chan error
	addrs        []string
	sent         prometheus.Counter
	completed    prometheus.Counter
	failed       prometheus.Counter
	cancelled    prometheus.Counter
	warmup       prometheus.Counter
	inFlight     prometheus.Gauge
	rate         prometheus.Gauge
	users        prometheus.Gauge
	runs         prometheus.Counter
	mu           sync.Mutex
	sentTotal    float64 // what sent says: the runs before this one plus this one's done + in flight
	sentRunStart float64
	doneRun      int // requests of this run finished, as observe saw them
	hook         func(addr string, closing bool)
}

// LiveWanted reports whether --web.listen-address (or systemd socket
// activation) asks for a listener: bench has none by default.
func LiveWanted(f *web.FlagConfig) bool {
	if f == nil {
		return false
	}
	if f.WebSystemdSocket != nil && *f.WebSystemdSocket {
		return true
	}
	if f.WebListenAddresses == nil {
		return false
	}
	for _, a := range *f.WebListenAddresses {
		if a != "" {
			return true
		}
	}
	return false
}

// LiveTarget is the target label of the run's series: the run's label,
// else the configured target's name (fromConfig), else the URL's host.
func LiveTarget(label string, fromConfig bool, t *config.Target) string {
	switch {
	case label != "":
		return label
	case fromConfig:
		return t.Name
	}
	if u, err := url.Parse(t.URL); err == nil && u.Host != "" {
		return u.Host
	}
	return t.Name
}

// StartLive opens the listeners of f (a bad address or --web.config.file
// fails here, before any request) and serves /metrics for the run's
// target t under the label name until Stop; nil, nil when f asks for no
// listener. hook, for tests, gets the first address once it serves and
// again just before it closes.
func StartLive(f *web.FlagConfig, t *config.Target, name string, slo summary.SLO, logw io.Writer, hook func(addr string, closing bool)) (*Live, error) {
	if !LiveWanted(f) {
		return nil, nil
	}
	if f.WebConfigFile != nil {
		if err := web.Validate(*f.WebConfigFile); err != nil {
			return nil, fmt.Errorf("--web.config.file: %w", err)
		}
	}
	reg := prometheus.NewRegistry()
	// The exposition escapes only \\, " and \n in a label value: an ESC in
	// a model name the server chose would reach whoever curls /metrics.
	l := &Live{metrics: prober.NewMetrics(reg), target: name, model: textfmt.Safe(t.Model), slo: slo,
		served: make(chan error, 1), hook: hook}
	tc := *t
	tc.Name, tc.Model = name, l.model
	info := &config.Config{Targets: []*config.Target{&tc}}
	// No llm_prober_build_info: LLMProberDown pages for an instance that
	// exposed it and went away, and a benchmark ends by design.
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prober.NewTargetInfo(func() *config.Config { return info }))
	l.register(reg)
	ttft := slo.TTFT
	if slo.TTFTPerToken > 0 {
		ttft = 0 // the probe metrics know one fixed threshold: leave per-token TTFT to the report
	}
	l.metrics.Init(name, l.model, LiveModule, 0, map[string]time.Duration{
		"ttft": ttft, "tpot": slo.TPOT, "e2el": slo.E2EL, "max_itl": slo.MaxITL})

	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.InstrumentMetricHandler(reg, exposition.Handler(reg, l.metrics, liveLogger{logw})))
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "Healthy") })
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	// Warnings only: the toolkit's start-up lines would interleave with the progress.
	logger := logadapter.Slog(level.NewFilter(log.NewLogfmtLogger(log.NewSyncWriter(logw)), level.AllowWarn()))
	if f.WebSystemdSocket != nil && *f.WebSystemdSocket {
		go func() { l.served <- web.ListenAndServe(l.srv, f, logger) }()
		l.addrs = []string{"systemd socket"}
	} else {
		var ls []net.Listener
		for _, a := range *f.WebListenAddresses {
			if a == "" {
				continue
			}
			ln, err := net.Listen("tcp", a)
			if err != nil {
				for _, o := range ls {
					o.Close()
				}
				return nil, fmt.Errorf("--web.listen-address %s: %w", a, err)
			}
			ls = append(ls, ln)
			l.addrs = append(l.addrs, ln.Addr().String())
		}
		go func() { l.served <- web.ServeMultiple(ls, l.srv, f, logger) }()
	}
	fmt.Fprintf(logw, "live metrics of target %q on %v/metrics\n", name, l.addrs)
	if hook != nil {
		hook(l.addrs[0], false)
	}
	return l, nil
}

// Stop closes the listener once the runs are over; a serving error is
// written to logw.
func (l *Live) Stop(logw io.Writer) {
	if l == nil {
		return
	}
	if l.hook != nil {
		l.hook(l.addrs[0], true)
	}
	_ = l.srv.Close()
	if err := <-l.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(logw, "--web.listen-address: %v\n", err)
	}
}

func (l *Live) register(reg *prometheus.Registry) {
	c := func(name, help string) prometheus.Counter {
		m := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
		reg.MustRegister(m)
		return m
	}
	g := func(name, help string) prometheus.Gauge {
		m := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
		reg.MustRegister(m)
		return m
	}
	l.sent = c("llm_prober_bench_requests_sent_total", "Requests the benchmark has sent, warm-up included (and due ones an interrupt cut off while queued).")
	l.completed = c("llm_prober_bench_requests_completed_total", "Measured requests that succeeded (--output-json's completed, summed over the runs).")
	l.failed = c("llm_prober_bench_requests_failed_total", "Measured requests that failed (--output-json's failed, summed over the runs).")
	l.cancelled = c("llm_prober_bench_requests_cancelled_total", "Measured requests cut off by the end of --duration or an interrupt.")
	l.warmup = c("llm_prober_bench_warmup_requests_total", "Warm-up requests finished (any outcome); not in the probe families.")
	l.runs = c("llm_prober_bench_runs_started_total", "Runs started: the current sweep point or --num-runs run is this number.")
	l.inFlight = g("llm_prober_bench_requests_in_flight", "Requests of the benchmark in flight (updated four times a second).")
	l.rate = g("llm_prober_bench_target_request_rate", "Open-loop arrival rate of the current run in requests/s (+Inf: all at once; 0 in a closed loop).")
	l.users = g("llm_prober_bench_concurrency", "Closed-loop users of the current run (0 in an open loop).")
}

// Attach adds the live metrics to o's per-request and progress hooks.
func (l *Live) Attach(o *loadtest.Options) {
	if l == nil {
		return
	}
	l.runs.Inc()
	l.users.Set(float64(o.Concurrency))
	switch {
	case o.ClosedLoop():
		l.rate.Set(0)
	case math.IsInf(o.Rate, 1) || o.Rate <= 0:
		l.rate.Set(math.Inf(1))
	default:
		l.rate.Set(o.Rate)
	}
	l.mu.Lock()
	l.sentRunStart, l.doneRun = l.sentTotal, 0
	l.mu.Unlock()
	prevResult, prevProgress := o.OnResult, o.Progress
	o.OnResult = func(rec *loadtest.Record, res *prober.Result) {
		if prevResult != nil {
			prevResult(rec, res)
		}
		l.observe(rec, res)
	}
	o.Progress = func(p loadtest.Progress) {
		if prevProgress != nil {
			prevProgress(p)
		}
		l.progress(p)
	}
}

// observe counts a finished request; the measured ones that the server
// answered (not cut off by the run) go into the probe families, as the
// report counts them.
func (l *Live) observe(rec *loadtest.Record, res *prober.Result) {
	l.mu.Lock()
	l.doneRun++
	l.sentAtLeast(l.sentRunStart + float64(l.doneRun))
	l.mu.Unlock()
	switch {
	case rec.Warmup:
		l.warmup.Inc()
		return
	case rec.Cancelled():
		l.cancelled.Inc()
		return
	case rec.Success():
		l.completed.Inc()
	default:
		l.failed.Inc()
	}
	r := *res
	r.Target, r.Model, r.Module = l.target, l.model, LiveModule
	if r.Success() {
		// bench's requests carry no SLO: judge them here against
		// --goodput, from the send (as the daemon judges a probe), and
		// an output cut short under ignore_eos as not good (the report's
		// count: l.slo is Pinned then).
		r.SLOViolations = nil
		if l.slo.Set() {
			m := summary.Misses(rec, l.slo, 0)
			for i, name := range summary.SLONames {
				if m&(1<<i) != 0 {
					r.SLOViolations = append(r.SLOViolations, name)
				}
			}
		}
		r.Good = summary.Good(rec, l.slo, 0)
	}
	l.metrics.Record(&r, time.Now())
}

// progress updates the in-flight gauge and the sent counter (finished
// plus in flight) four times a second.
func (l *Live) progress(p loadtest.Progress) {
	l.inFlight.Set(float64(p.InFlight))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sentAtLeast(l.sentRunStart + float64(max(p.Done, l.doneRun)+p.InFlight))
}

// sentAtLeast raises the sent counter to n: it only moves forward, as
// done and in flight are read apart. l.mu is held.
func (l *Live) sentAtLeast(n float64) {
	if n > l.sentTotal {
		l.sent.Add(n - l.sentTotal)
		l.sentTotal = n
	}
}

type liveLogger struct{ w io.Writer }

func (l liveLogger) Println(v ...any) {
	fmt.Fprintln(l.w, "live metrics:", fmt.Sprint(v...))
}
