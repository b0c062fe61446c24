package main

import (
	"fmt"
	"html/template"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/version"

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
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		err := landingTemplate.Execute(w, landingData{
			Version: version.Info(), MetricsPath: metricsPath, Jobs: a.scheduler.Statuses(),
			History: a.historyData(),
		})
		if err != nil {
			level.Warn(a.logger).Log("msg", "rendering landing page", "err", err)
		}
	})
	return mux
}

type promhttpLogger struct{ a *app }

func (l promhttpLogger) Println(v ...any) {
	level.Error(l.a.logger).Log("msg", fmt.Sprint(v...))
}

type landingData struct {
	Version     string
	MetricsPath string
	Jobs        []prober.Status
	History     historyData
}

var landingTemplate = template.Must(template.New("landing").Funcs(template.FuncMap{
	"ms": func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) },
	"ago": func(t time.Time) string {
		return time.Since(t).Truncate(time.Second).String() + " ago"
	},
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>llm-prober</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}.fail{color:#b00}.ok{color:#070}</style>
</head><body>
<h1>llm-prober</h1>
<p>Continuous synthetic prober for LLM inference servers. {{.Version}}</p>
<p><a href="{{.MetricsPath}}">Metrics</a> · <a href="/config">Configuration</a> · <a href="/-/healthy">Health</a> · <a href="/-/ready">Readiness</a></p>
<h2>Targets</h2>
<table><tr><th>Target</th><th>Model</th><th>Module</th><th>URL</th><th>Interval</th><th>Last probe</th><th>Outcome</th><th>TTFT</th><th>TPOT</th><th>E2EL</th><th>Output tokens</th><th>Probe id</th></tr>
{{range .Jobs}}<tr><td>{{.Target}}</td><td>{{.Model}}</td><td>{{.Module}}</td><td>{{.URL}}</td><td>{{.Interval}}</td>
{{with .Last}}<td>{{ago .Start}}</td>{{if .Success}}<td class="ok">{{if .Good}}good{{else}}ok, SLO missed: {{.SLOViolations}}{{end}}</td><td>{{ms .TTFT}}</td><td>{{ms .TPOT}}</td><td>{{ms .E2EL}}</td><td>{{.OutputTokens}}</td>{{else}}<td class="fail">{{.Reason}}: {{.Err}}</td><td></td><td></td><td></td><td></td>{{end}}<td><a href="/logs?id={{.ID}}">{{.ID}}</a></td>
{{else}}<td colspan="7">not probed yet</td>{{end}}</tr>
{{end}}</table>
{{template "history" .History}}
</body></html>
`))
