package prober

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/config"
)

// replicaExposition is one vLLM replica's /metrics: its own start time
// and counters.
func replicaExposition(start float64, requests int) string {
	return fmt.Sprintf(`# TYPE process_start_time_seconds gauge
process_start_time_seconds %.2f
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="m",engine="0"} %d
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{model_name="m",engine="0",le="+Inf"} %[2]d
vllm:e2e_request_latency_seconds_sum{model_name="m",engine="0"} %[2]d
vllm:e2e_request_latency_seconds_count{model_name="m",engine="0"} %[2]d
`, start, requests)
}

// Issue 22: a server answering 500 to every request, behind one URL with
// two replicas whose /metrics alternate (a Service), had 30 of 31
// failures hidden as warm-up. Every failure counts, with or without a
// warm-up open.
func TestWarmupNeverHidesFailures(t *testing.T) {
	var scrapes atomic.Int64
	oldStart, newStart := float64(time.Now().Add(-time.Hour).Unix()), float64(time.Now().Add(-time.Minute).Unix())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		if i := int(scrapes.Add(1)); i%2 == 0 {
			_, _ = fmt.Fprint(w, replicaExposition(oldStart, 9000+i))
		} else {
			_, _ = fmt.Fprint(w, replicaExposition(newStart, 10+i))
		}
	}))
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		name    string
		restart func(servers *collector.Manager) RestartSource
	}{
		// The collector scraping the two replicas: no restart at all.
		{"two replicas", func(servers *collector.Manager) RestartSource { return servers }},
		// A real restart just before the probes: the warm-up opens, and
		// its failures count all the same.
		{"restart", func(*collector.Manager) RestartSource { return restartedAt(time.Now()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 12
			tg := &config.Target{Name: "t", URL: srv.URL, Model: "m", Modules: []string{"chat"},
				Interval: model.Duration(30 * time.Millisecond), Timeout: model.Duration(time.Second),
				Warmup: config.Warmup{Probes: 5, Duration: model.Duration(time.Minute)},
				ServerMetrics: config.ServerMetrics{Enabled: true, Interval: model.Duration(5 * time.Millisecond),
					Timeout: model.Duration(time.Second)}}
			cfg := &config.Config{Global: config.Global{MaxConcurrentProbes: 4},
				Modules: map[string]*config.Module{"chat": chatModule()}, Targets: []*config.Target{tg}}
			servers := collector.NewManager(nil)
			t.Cleanup(servers.Stop)
			servers.Apply(cfg.Targets)

			var mu sync.Mutex
			var warm int
			done := make(chan struct{})
			metrics := NewMetrics(prometheus.NewRegistry())
			finished := 0
			s := NewScheduler(log.NewNopLogger(), metrics, "test", func(r *Result) {
				mu.Lock()
				defer mu.Unlock()
				if r.Warmup != "" {
					warm++
				}
				if finished++; finished == n {
					close(done)
				}
			})
			s.DetectRestarts(tc.restart(servers))
			runUntil(t, s, cfg, done)
			mu.Lock()
			defer mu.Unlock()
			c := readWarmupCounts(t, metrics)
			if c.probes != float64(finished) || c.failures != float64(finished) || c.good != 0 {
				t.Errorf("%d probes failed with 500; counted probes %v, failures %v, good %v (warm-up %d): a failure hidden",
					finished, c.probes, c.failures, c.good, warm)
			}
			if c.warmup[WarmupFailure] != float64(warm) {
				t.Errorf("warm-up failures %v, want %d", c.warmup[WarmupFailure], warm)
			}
			if tc.name == "restart" && warm != 5 {
				t.Errorf("%d warm-up probes after a restart, want 5", warm)
			}
			if tc.name == "two replicas" && warm != 0 {
				t.Errorf("%d warm-up probes with no restart", warm)
			}
		})
	}
}

// restartedAt is a RestartSource whose every target restarted at one
// instant.
type restartedAt time.Time

func (r restartedAt) LastRestart(string) (time.Time, bool) { return time.Time(r), true }
