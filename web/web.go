// Package web is the prober's HTTP interface beside /metrics: the status
// page, /logs, the on-demand /probe, and the health, readiness, reload and
// config endpoints. It reads the running prober through Options and holds
// no state of its own but /probe's concurrency slots; the command wires
// its handlers onto the mux.
package web

import (
	"fmt"
	"net/http"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/status"
	"github.com/llm-prober/llm-prober/prober"
	"github.com/llm-prober/llm-prober/targets"
)

// Options is what the pages read from the running prober. The status
// page needs Scheduler, History and Board, /logs and /probe History;
// Fleet and Reload may be nil.
type Options struct {
	Logger log.Logger
	// Config is the running config, nil before the first load.
	Config    func() *config.Config
	Scheduler *prober.Scheduler
	History   *prober.History
	Board     *status.Tracker // last-hour windows
	Fleet     *targets.Fleet  // shard and discovery; nil: none
	// Reload reloads the config file (/-/reload); the error is shown.
	Reload func() error
	// MetricsPath is where /metrics is served, for the status page's link.
	MetricsPath string
	// AllowArbitraryTargets lets /probe?url=... probe any URL.
	AllowArbitraryTargets bool
	// ProbeMaxConcurrent caps /probe requests running at once.
	ProbeMaxConcurrent int
	// UserAgent of on-demand probes.
	UserAgent string
}

// UI serves the prober's pages.
type UI struct {
	o          Options
	logger     log.Logger
	probeSlots chan struct{} // caps concurrent /probe requests
}

// New returns the pages of the prober that o describes.
func New(o Options) *UI {
	logger := o.Logger
	if logger == nil {
		logger = log.NewNopLogger()
	}
	return &UI{o: o, logger: logger, probeSlots: make(chan struct{}, max(o.ProbeMaxConcurrent, 1))}
}

func (u *UI) config() *config.Config {
	if u.o.Config == nil {
		return nil
	}
	return u.o.Config()
}

// Healthy answers while the process serves HTTP.
func Healthy(w http.ResponseWriter, _ *http.Request) {
	fmt.Fprintln(w, "Healthy")
}

// Ready answers once a config is loaded and the scheduler runs, whatever
// the targets' health: an LLM outage must not restart the prober. It reads
// atomics only, so a reload in progress does not hold it up.
func (u *UI) Ready(w http.ResponseWriter, _ *http.Request) {
	if u.config() == nil || u.o.Scheduler == nil || !u.o.Scheduler.Running() {
		http.Error(w, "Not ready", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "Ready")
}

// Reload reloads the config on POST; on failure the running one stays.
func (u *UI) Reload(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "This endpoint requires a POST request.", http.StatusMethodNotAllowed)
		return
	}
	if u.o.Reload == nil {
		http.Error(w, "this prober does not reload", http.StatusNotImplemented)
		return
	}
	if err := u.o.Reload(); err != nil {
		level.Error(u.logger).Log("msg", "reload failed; keeping the running config", "err", err)
		http.Error(w, "failed to reload config: "+err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Fprintln(w, "OK")
}

// Config shows the running config, secrets redacted.
func (u *UI) Config(w http.ResponseWriter, _ *http.Request) {
	cfg := u.config()
	if cfg == nil {
		http.Error(w, "no configuration loaded", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, cfg.String())
}
