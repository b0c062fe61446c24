package main

import (
	"fmt"
	"net/http"
	"net/http/pprof"

	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/llm-prober/llm-prober/internal/exposition"
	"github.com/llm-prober/llm-prober/prober"
)

// routes wires every HTTP endpoint of the prober.
func (a *app) routes(reg *prometheus.Registry, metrics *prober.Metrics, metricsPath string, enablePprof bool) http.Handler {
	mux := http.NewServeMux()
	// The per-schedule series are written straight from the store (a
	// gather of 10,000 targets' series would take seconds); OpenMetrics
	// is offered for exemplars (probe ids) on histogram buckets. The
	// handler counts its scrapes as promhttp's own handler does.
	mux.Handle(metricsPath, promhttp.InstrumentMetricHandler(reg, exposition.Handler(reg, metrics, promhttpLogger{a})))
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "Healthy")
	})
	// Ready once a config is loaded and the scheduler runs, whatever the
	// targets' health: an LLM outage must not restart the prober.
	mux.HandleFunc("/-/ready", func(w http.ResponseWriter, _ *http.Request) {
		if a.safe.Get() == nil || !a.scheduler.Running() {
			http.Error(w, "Not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "Ready")
	})
	mux.HandleFunc("/-/reload", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "This endpoint requires a POST request.", http.StatusMethodNotAllowed)
			return
		}
		if err := a.reload(); err != nil {
			level.Error(a.logger).Log("msg", "reload failed; keeping the running config", "err", err)
			http.Error(w, "failed to reload config: "+err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "OK")
	})
	mux.HandleFunc("/config", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, a.safe.Get().String())
	})
	mux.HandleFunc("/probe", a.handleProbe)
	// Profiles show where the memory of 10,000 targets goes in
	// production; opt-in, as they also show internals.
	if enablePprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.HandleFunc("/logs", a.handleLogs)
	mux.HandleFunc("/{$}", a.handleStatus(metricsPath))
	return mux
}

type promhttpLogger struct{ a *app }

func (l promhttpLogger) Println(v ...any) {
	level.Error(l.a.logger).Log("msg", fmt.Sprint(v...))
}
