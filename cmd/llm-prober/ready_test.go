package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/prober"
)

// /-/ready and /-/healthy answer while a reload holds its lock (a reload
// that waits on discovery, a slow file system, a scheduler stopping its
// jobs): they read atomics only. The time bound is a hang detector, not a
// speed target; BenchmarkReadinessUnderAttack measures the speed.
func TestReadyAndHealthyDuringReload(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, cfg, fmt.Sprintf(configTemplate, targetYAML("t", "http://127.0.0.1:1")))
	reg := prometheus.NewRegistry()
	a := &app{logger: log.NewNopLogger(), configFile: cfg, safe: config.NewSafeConfig(reg)}
	if err := a.safe.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	metrics := prober.NewMetrics(reg)
	a.scheduler = prober.NewScheduler(log.NewNopLogger(), metrics, "test", nil)
	a.scheduler.Apply(a.safe.Get())
	t.Cleanup(func() { a.scheduler.Stop(5 * time.Second) })
	srv := httptest.NewServer(a.routes(reg, metrics, "/metrics", false))
	t.Cleanup(srv.Close)

	a.reloadMu.Lock() // a reload in progress, for as long as the test runs
	defer a.reloadMu.Unlock()
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
}
