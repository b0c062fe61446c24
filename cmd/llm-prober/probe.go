package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/common/version"
	toolkitweb "github.com/prometheus/exporter-toolkit/web"

	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/logadapter"
	"github.com/llm-prober/llm-prober/internal/status"
	"github.com/llm-prober/llm-prober/otelmetrics"
	"github.com/llm-prober/llm-prober/prober"
	"github.com/llm-prober/llm-prober/targets"
	"github.com/llm-prober/llm-prober/tracing"
)

type proberFlags struct {
	configFile      string
	configCheck     bool
	demo            bool
	metricsPath     string
	enablePprof     bool
	shutdownTimeout time.Duration
	logLevel        string
	logFormat       string
	web             *toolkitweb.FlagConfig
	listenSet       bool // --web.listen-address given

	allowArbitraryTargets bool
	probeMaxConcurrent    int

	shardCount int
	shardIndex string
	location   string
}

// app is the running prober: the config and everything applied from it.
type app struct {
	reloadMu   sync.Mutex
	logger     log.Logger
	configFile string
	safe       *config.SafeConfig
	scheduler  *prober.Scheduler
	servers    *collector.Manager
	history    *prober.History
	fleet      *targets.Fleet // discovery and sharding: derives the running config
	metrics    *prober.Metrics
	// The location label: --probe.location, else global.location as
	// first loaded (series cannot change it while running).
	flagLocation string
	location     *string
	stopping     bool                 // shutting down: discovery applies nothing (reloadMu)
	board        *status.Tracker      // last-hour windows for the status page
	spans        tracing.Spans        // probe spans over OTLP (tracing.otlp_endpoint)
	genai        otelmetrics.Probes   // GenAI metrics over OTLP (otlp_metrics.endpoint)
	serverReg    *prometheus.Registry // the collector alone, for the server half
}

func (f *proberFlags) run() int {
	// First of all: SIGHUP's default action would kill the process. One
	// that comes during start-up is served after the first load.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	logger, baseLogger, err := newLogger(f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if f.configCheck {
		return checkConfig(f.configFile)
	}
	shard, err := targets.ParseShard(f.shardCount, f.shardIndex)
	if err != nil {
		level.Error(logger).Log("msg", "invalid --shard.count or --shard.index", "err", err)
		return 2
	}
	if err := config.CheckLocation(f.location); err != nil {
		level.Error(logger).Log("msg", "invalid --probe.location", "err", err)
		return 2
	}
	level.Info(logger).Log("msg", "starting llm-prober", "version", version.Info(), "build_context", version.BuildContext())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.demo {
		file, closeDemo, err := startDemo(logger)
		if err != nil {
			level.Error(logger).Log("msg", "cannot start demo", "err", err)
			return 1
		}
		defer closeDemo()
		f.configFile = file
		if !f.listenSet {
			// A demo is for this machine: loopback, unless asked otherwise.
			*f.web.WebListenAddresses = []string{demoListenAddress}
		}
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(versioncollector.NewCollector("llm_prober"),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	a := &app{logger: logger, configFile: f.configFile, safe: config.NewSafeConfig(reg)}
	a.history = prober.NewHistory(prober.DefaultHistorySuccesses, prober.DefaultHistoryFailures)
	a.board = status.NewTracker(a.serverReading)
	metrics := prober.NewMetrics(reg)
	a.metrics = metrics
	a.scheduler = prober.NewScheduler(logger, metrics, "llm-prober/"+version.Version, a.observe)
	a.servers = collector.NewManager(logger)
	a.genai.Detect = a.servers.Backend // the provider of a target whose backend is auto
	a.fleet = targets.NewFleet(baseLogger, reg, shard, a.applyDiscovered)
	// The running config's location is the one the series carry, so
	// that /config and llm_prober_target_info show it.
	a.flagLocation = f.location
	a.safe.SetDerive(func(c *config.Config) *config.Config {
		d := a.fleet.Derive(c)
		if loc := a.locationFor(c); loc != "" {
			d.Global.Location = loc
		}
		return d
	})
	defer a.fleet.Stop()
	a.scheduler.ExplainQueueing(func(target string) (float64, bool) {
		st, ok := a.servers.ServerStatus(target)
		return st.RequestsWaiting, ok && !math.IsNaN(st.RequestsWaiting)
	})
	a.scheduler.DetectRestarts(a.servers) // warm-up after a server restart
	reg.MustRegister(prober.NewTargetInfo(a.safe.Get), a.servers)
	a.serverReg = prometheus.NewRegistry()
	a.serverReg.MustRegister(a.servers)

	if err := a.reload(); err != nil {
		level.Error(logger).Log("msg", "cannot load config", "err", err)
		return 1
	}

	srv := &http.Server{Handler: a.routes(reg, metrics, f), ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- toolkitweb.ListenAndServe(srv, f.web, logadapter.Slog(baseLogger)) }()

	code := 0
loop:
	for {
		select {
		case <-hup:
			if err := a.reload(); err != nil {
				level.Error(logger).Log("msg", "reload failed; keeping the running config", "err", err)
			}
		case err := <-serveErr:
			if !errors.Is(err, http.ErrServerClosed) {
				level.Error(logger).Log("msg", "HTTP server failed", "err", err)
				code = 1
			}
			break loop
		case <-ctx.Done():
			level.Info(logger).Log("msg", "shutting down")
			break loop
		}
	}
	// One deadline for everything, so the process exits within
	// --shutdown.timeout however the time is spent.
	deadline := time.Now().Add(f.shutdownTimeout)
	// No discovery update may restart jobs once they stop.
	a.fleet.Stop()
	a.reloadMu.Lock()
	a.stopping = true
	a.reloadMu.Unlock()
	if !a.scheduler.Stop(f.shutdownTimeout) {
		level.Warn(logger).Log("msg", "in-flight probes did not stop in time", "timeout", f.shutdownTimeout)
	}
	a.servers.Stop()
	shutdownCtx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	a.spans.Stop(shutdownCtx)
	a.genai.Stop(shutdownCtx)
	if srv.Shutdown(shutdownCtx) != nil {
		_ = srv.Close()
	}
	return code
}

// reload loads the config file and applies it. On any
// error the running config stays in place.
func (a *app) reload() error {
	// SIGHUP and /-/reload may race; the scheduler and collector must end
	// up on the config that SafeConfig holds.
	a.reloadMu.Lock()
	defer a.reloadMu.Unlock()
	if err := a.safe.Reload(a.configFile); err != nil {
		return err
	}
	// Discoverers whose config did not change keep running (and their
	// targets with them); a discoverer that cannot start is logged and
	// counted in prometheus_sd_failed_configs, and the rest still run.
	if err := a.fleet.ApplyConfig(a.safe.File()); err != nil {
		level.Error(a.logger).Log("msg", "target discovery", "err", err)
	}
	// Applied even when the file did not change: unchanged targets keep
	// running untouched, and those whose HTTP client failed to build get
	// another try.
	a.spans.Apply(a.safe.File().Tracing, a.logger)
	// An unreadable API-key or CA file fails only its target's probes (a
	// later reload picks it up), so it does not refuse the config; but it
	// is said here, once, rather than only in every probe's error.
	for _, err := range config.CheckFiles(a.safe.File()) {
		level.Warn(a.logger).Log("msg", "config names a file that cannot be read; the probes that need it fail until it can", "err", err)
	}
	cfg := a.safe.Get()
	a.genai.Apply(cfg, a.serverReg, version.Version, a.logger)
	a.fixLocation(a.safe.File().Global.Location)
	a.scheduler.Apply(cfg)
	a.servers.SetKeepAlive(time.Duration(cfg.Global.KeepAliveTimeout))
	a.servers.Apply(cfg.Targets)
	level.Info(a.logger).Log("msg", "config loaded", "file", a.configFile, "targets", len(cfg.Targets), "modules", len(cfg.Modules))
	return nil
}

// fixLocation sets the series' location label at the first load: a
// running prober's series keep theirs, so a changed global.location
// applies from the next start (and is logged).
func (a *app) fixLocation(file string) {
	switch loc := a.locationFor(&config.Config{Global: config.Global{Location: file}}); {
	case a.location == nil:
		a.location = &loc
		a.metrics.SetLocation(loc)
	case a.flagLocation == "" && *a.location != file:
		level.Warn(a.logger).Log("msg", "global.location changed; the series keep the old one until a restart", "running", *a.location, "configured", file)
	}
}

// locationFor is the location label running c: fixed once set, else the
// flag's, else c's. Called under reloadMu.
func (a *app) locationFor(c *config.Config) string {
	switch {
	case a.location != nil:
		return *a.location
	case a.flagLocation != "":
		return a.flagLocation
	}
	return c.Global.Location
}

// applyDiscovered applies discovered changes as a reload would, so the
// same jobs keep running untouched; reloadMu serializes it with reloads.
func (a *app) applyDiscovered() {
	a.reloadMu.Lock()
	defer a.reloadMu.Unlock()
	start := time.Now()
	if a.stopping {
		return
	}
	cfg := a.safe.Rederive()
	if cfg == nil {
		return
	}
	a.genai.Apply(cfg, a.serverReg, version.Version, a.logger)
	a.scheduler.Apply(cfg)
	a.servers.Apply(cfg.Targets)
	a.fleet.Applied(start)
	level.Debug(a.logger).Log("msg", "discovered targets applied", "targets", len(cfg.Targets), "took", time.Since(start))
}

func checkConfig(file string) int {
	cfg, err := config.LoadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Files a running prober would read later (a reload may find them)
	// but whose absence now means failing probes.
	if errs := config.CheckFiles(cfg); len(errs) > 0 {
		for _, err := range errs {
			fmt.Fprintln(os.Stderr, err)
		}
		return 1
	}
	if n := len(cfg.TargetDiscovery); n > 0 {
		// Discovery itself is not run: the check does not reach an API
		// server or an http_sd endpoint.
		fmt.Printf("%s: OK (%d static targets, %d target_discovery entries, %d modules)\n", file, len(cfg.Targets), n, len(cfg.Modules))
		return 0
	}
	fmt.Printf("%s: OK (%d targets, %d modules)\n", file, len(cfg.Targets), len(cfg.Modules))
	return 0
}
