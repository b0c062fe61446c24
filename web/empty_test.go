package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/status"
	"github.com/llm-prober/llm-prober/prober"
)

// The pages of a prober with nothing yet (no config, no targets, no
// history) and requests that name nothing answer with a status that says
// so, never a panic.
func TestPagesWithNothing(t *testing.T) {
	sched := prober.NewScheduler(log.NewNopLogger(), prober.NewMetrics(prometheus.NewRegistry()), "test", nil)
	ui := New(Options{Config: func() *config.Config { return nil }, Scheduler: sched, History: prober.NewHistory(10, 10),
		Board: status.NewTracker(nil), MetricsPath: "/metrics"})
	for _, c := range []struct {
		handler http.HandlerFunc
		target  string
		code    int
		want    string
	}{
		{ui.Ready, "/-/ready", http.StatusServiceUnavailable, "Not ready"},
		{ui.Status, "/", http.StatusOK, "no targets configured"},
		{ui.Status, "/", http.StatusOK, "0 of 0 failing"},
		{ui.Status, "/?failing=1", http.StatusOK, "none failing"},
		{ui.Status, "/", http.StatusOK, "no probes yet"},
		{ui.Logs, "/logs", http.StatusBadRequest, "id parameter is missing"},
		{ui.Logs, "/logs?id=%3Cscript%3E", http.StatusNotFound, `probe id "<script>" not found`},
		{ui.Probe, "/probe?target=a", http.StatusServiceUnavailable, "no configuration loaded"},
		{ui.Config, "/config", http.StatusServiceUnavailable, "no configuration loaded"},
		{ui.Reload, "/-/reload", http.StatusMethodNotAllowed, "requires a POST"},
	} {
		w := httptest.NewRecorder()
		c.handler(w, httptest.NewRequest("GET", c.target, nil))
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.want) {
			t.Errorf("%s: HTTP %d, want %d with %q:\n%.400s", c.target, w.Code, c.code, c.want, w.Body)
		}
		// An error answer echoes the request as plain text, which a
		// browser must not sniff into HTML.
		if h := w.Header(); w.Code != http.StatusOK && (!strings.HasPrefix(h.Get("Content-Type"), "text/plain") || h.Get("X-Content-Type-Options") != "nosniff") {
			t.Errorf("%s: error answer as %q, %q", c.target, h.Get("Content-Type"), h.Get("X-Content-Type-Options"))
		}
	}
}

// /probe names what is wrong with a request before it probes anything.
func TestProbeRequestErrors(t *testing.T) {
	safe := loadConfig(t, "1s", "1s", "a", "http://127.0.0.1:1")
	ui := New(Options{Config: safe.Get, History: prober.NewHistory(10, 10)})
	for _, c := range []struct {
		query string
		code  int
		want  string
	}{
		{"", http.StatusBadRequest, "target parameter is missing (configured: a)"},
		{"target=b", http.StatusBadRequest, `unknown target "b"`},
		{"target=a&module=x", http.StatusBadRequest, `unknown module "x" for target "a" (choices: chat)`},
		{"target=a&url=http://x", http.StatusBadRequest, "give either target or url, not both"},
		{"url=http://127.0.0.1:1&model=m", http.StatusForbidden, "--probe.allow-arbitrary-targets"},
	} {
		w := httptest.NewRecorder()
		ui.Probe(w, httptest.NewRequest("GET", "/probe?"+c.query, nil))
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.want) {
			t.Errorf("?%s: HTTP %d %q, want %d with %q", c.query, w.Code, w.Body, c.code, c.want)
		}
	}
	w := httptest.NewRecorder()
	ui.Reload(w, httptest.NewRequest("POST", "/-/reload", nil))
	if w.Code != http.StatusNotImplemented {
		t.Errorf("POST /-/reload without a reloader: HTTP %d", w.Code)
	}
	if got := ui.o.History.Recent(); len(got) != 0 {
		t.Errorf("refused requests were recorded as probes: %d", len(got))
	}
}
