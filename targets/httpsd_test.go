package targets

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"
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

// With an http_sd entry our /metrics passes promtool check metrics:
// Prometheus's refresh metrics include a family named after its type
// (prometheus_sd_refresh_duration_histogram_seconds), which is dropped.
func TestHTTPSDMetricsLint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[{"targets": ["127.0.0.1:8001"]}]`)
	}))
	defer srv.Close()
	r := startHTTPSDFleet(t, srv.URL+"/sd")
	r.waitFor(t, "127.0.0.1:8001")
	mfs, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	var text bytes.Buffer
	for _, mf := range mfs {
		if err := expfmt.NewEncoder(&text, expfmt.NewFormat(expfmt.TypeTextPlain)).Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(text.String(), "_histogram_seconds") {
		t.Errorf("a family named after its type is exported:\n%s", text.String())
	}
	if promtool := os.Getenv("PROMTOOL"); promtool != "" {
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = &text
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
}
