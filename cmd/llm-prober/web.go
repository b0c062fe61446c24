package main

import (
	"fmt"
	"net/http"
	"net/http/pprof"

	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/version"

	"github.com/llm-prober/llm-prober/internal/exposition"
	"github.com/llm-prober/llm-prober/prober"
	"github.com/llm-prober/llm-prober/web"
)

// routes wires every HTTP endpoint of the prober; the pages are package web's.
func (a *app) routes(reg *prometheus.Registry, metrics *prober.Metrics, f *proberFlags) http.Handler {
	ui := web.New(web.Options{
		Logger: a.logger, Config: a.safe.Get, Scheduler: a.scheduler, History: a.history, Board: a.board, Fleet: a.fleet,
		Reload: a.reload, MetricsPath: f.metricsPath,
		AllowArbitraryTargets: f.allowArbitraryTargets, ProbeMaxConcurrent: f.probeMaxConcurrent,
		UserAgent: "llm-prober/" + version.Version,
	})
	mux := http.NewServeMux()
	// The per-schedule series are written straight from the store (a
	// gather of 10,000 targets' series would take seconds); OpenMetrics
	// is offered for exemplars (probe ids) on histogram buckets. The
	// handler counts its scrapes as promhttp's own handler does.
	mux.Handle(f.metricsPath, promhttp.InstrumentMetricHandler(reg, exposition.Handler(reg, metrics, promhttpLogger{a})))
	mux.HandleFunc("/-/healthy", web.Healthy)
	mux.HandleFunc("/-/ready", ui.Ready)
	mux.HandleFunc("/-/reload", ui.Reload)
	mux.HandleFunc("/config", ui.Config)
	mux.HandleFunc("/probe", ui.Probe)
	// Profiles show where the memory of 10,000 targets goes in
	// production; opt-in, as they also show internals.
	if f.enablePprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.HandleFunc("/logs", ui.Logs)
	mux.HandleFunc("/{$}", ui.Status)
	return mux
}

type promhttpLogger struct{ a *app }

func (l promhttpLogger) Println(v ...any) {
	level.Error(l.a.logger).Log("msg", fmt.Sprint(v...))
}
