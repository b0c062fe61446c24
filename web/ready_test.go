package web

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
)

// /-/ready and /-/healthy answer while a reload is in progress (a reload
// that waits on discovery, a slow file system, a scheduler stopping its
// jobs): they read atomics only. The time bound is a hang detector, not a
// speed target; BenchmarkReadinessUnderAttack (cmd/llm-prober) measures
// the speed.
func TestReadyAndHealthyDuringReload(t *testing.T) {
	safe := loadConfig(t, "1s", "1s", "t", "http://127.0.0.1:1")
	sched := prober.NewScheduler(log.NewNopLogger(), prober.NewMetrics(prometheus.NewRegistry()), "test", nil)
	sched.Apply(safe.Get())
	t.Cleanup(func() { sched.Stop(5 * time.Second) })
	reloading, release := make(chan struct{}), make(chan struct{})
	ui := New(Options{Config: safe.Get, Scheduler: sched, Reload: func() error {
		close(reloading)
		<-release // a reload in progress, for as long as the test runs
		return errors.New("refused")
	}})
	mux := http.NewServeMux()
	mux.HandleFunc("/-/ready", ui.Ready)
	mux.HandleFunc("/-/healthy", Healthy)
	mux.HandleFunc("/-/reload", ui.Reload)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	reloaded := make(chan int, 1)
	go func() {
		resp, err := http.Post(srv.URL+"/-/reload", "", nil)
		if err != nil {
			reloaded <- 0
			return
		}
		resp.Body.Close()
		reloaded <- resp.StatusCode
	}()
	<-reloading
	client := &http.Client{Timeout: 10 * time.Second}
	for _, path := range []string{"/-/ready", "/-/healthy"} {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatalf("%s during a reload: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s during a reload: HTTP %d", path, resp.StatusCode)
		}
	}
	close(release)
	if code := <-reloaded; code != http.StatusInternalServerError {
		t.Errorf("a failed reload answered HTTP %d, want 500", code)
	}
}

// Not ready before a config is loaded, nor with a scheduler that is not
// running; /-/reload takes POST only.
func TestNotReadyAndReloadMethod(t *testing.T) {
	safe := loadConfig(t, "1s", "1s", "t", "http://127.0.0.1:1")
	sched := prober.NewScheduler(log.NewNopLogger(), prober.NewMetrics(prometheus.NewRegistry()), "test", nil)
	reloads := 0
	for name, ui := range map[string]*UI{
		"no config":         New(Options{Config: func() *config.Config { return nil }, Scheduler: sched}),
		"scheduler stopped": New(Options{Config: safe.Get, Scheduler: sched}),
		"nothing":           New(Options{}),
	} {
		w := httptest.NewRecorder()
		ui.Ready(w, httptest.NewRequest("GET", "/-/ready", nil))
		if w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: ready answered HTTP %d", name, w.Code)
		}
	}
	ui := New(Options{Config: safe.Get, Reload: func() error { reloads++; return nil }})
	w := httptest.NewRecorder()
	ui.Reload(w, httptest.NewRequest("GET", "/-/reload", nil))
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != http.MethodPost || reloads != 0 {
		t.Errorf("GET /-/reload: HTTP %d, Allow %q, %d reloads", w.Code, w.Header().Get("Allow"), reloads)
	}
	w = httptest.NewRecorder()
	ui.Reload(w, httptest.NewRequest("POST", "/-/reload", nil))
	if body, _ := io.ReadAll(w.Body); w.Code != http.StatusOK || strings.TrimSpace(string(body)) != "OK" || reloads != 1 {
		t.Errorf("POST /-/reload: HTTP %d %q, %d reloads", w.Code, body, reloads)
	}
	w = httptest.NewRecorder()
	ui.Config(w, httptest.NewRequest("GET", "/config", nil))
	if !strings.Contains(w.Body.String(), "mock-model") {
		t.Errorf("/config does not show the running config:\n%s", w.Body)
	}
}
