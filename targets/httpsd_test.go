package targets

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// http_sd against a real loopback server: targets follow its answer, and
// a failing endpoint keeps the last good set and counts the failure.
func TestHTTPSD(t *testing.T) {
	var body atomic.Value
	var fail atomic.Bool
	body.Store(`[{"targets": ["127.0.0.1:8001", "127.0.0.1:8002"], "labels": {"__meta_model": "qwen"}}]`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body.Load())
	}))
	defer srv.Close()
	cfg := loadConfig(t, t.TempDir(), `
target_discovery:
  - name: registry
    http_sd_configs:
      - url: `+srv.URL+`/sd
        refresh_interval: 200ms
    relabel_configs:
      - source_labels: [__meta_model]
        target_label: __model__
      - source_labels: [__address__]
        regex: "127.0.0.1:(.*)"
        target_label: __target__
        replacement: port-$1
    template:
      modules: [m]
`)
	r := startFleet(t, cfg, Shard{Count: 1})
	got := r.waitFor(t, "port-8001", "port-8002")
	if tg := got.Targets[0]; tg.URL != "http://127.0.0.1:8001" || tg.Model != "qwen" {
		t.Errorf("target: %+v", tg)
	}
	body.Store(`[{"targets": ["127.0.0.1:8003"], "labels": {"__meta_model": "qwen"}}]`)
	r.waitFor(t, "port-8003")

	fail.Store(true)
	waitMetric(t, r, "prometheus_sd_http_failures_total", "", 2)
	if got := names(r.fleet.Derive(r.cfg).Targets); len(got) != 1 || got[0] != "port-8003" {
		t.Errorf("after failures: %v", got)
	}
}
