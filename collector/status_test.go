package collector

import (
	"io"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// ServerStatus folds a two-engine vLLM into one reading per signal (max
// for the KV cache, sums for the rest), gives NaN for what a server does
// not export, and nothing for unknown, unscraped or stale targets.
func TestServerStatus(t *testing.T) {
	twoEngines := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m",engine="0"} 3
vllm:num_requests_running{model_name="m",engine="1"} 4
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="m",engine="0"} 2
vllm:num_requests_waiting{model_name="m",engine="1"} 5
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{model_name="m",engine="0"} 0.25
vllm:kv_cache_usage_perc{model_name="m",engine="1"} 0.75
# TYPE vllm:num_preemptions counter
vllm:num_preemptions_total{model_name="m",engine="0"} 10
vllm:num_preemptions_total{model_name="m",engine="1"} 4
`)
	})
	queueOnly := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 1\n")
	})
	down := serve(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	m := newManager(t)
	m.Apply([]*config.Target{target("two", twoEngines.URL), target("queue", queueOnly.URL), target("down", down.URL)})
	for _, name := range []string{"two", "queue", "down"} {
		waitScrapes(t, m, name, 1)
	}

	st, ok := m.ServerStatus("two")
	if !ok || st.KVCacheUsage != 0.75 || st.RequestsRunning != 7 || st.RequestsWaiting != 7 || st.Preemptions != 14 {
		t.Errorf("two engines: %+v, %v; want KV 0.75, running 7, waiting 7, preemptions 14", st, ok)
	}
	if time.Since(st.At) > time.Minute {
		t.Errorf("scraped at %v", st.At)
	}
	st, ok = m.ServerStatus("queue")
	if !ok || st.RequestsWaiting != 1 || !math.IsNaN(st.KVCacheUsage) || !math.IsNaN(st.RequestsRunning) || !math.IsNaN(st.Preemptions) {
		t.Errorf("queue only: %+v, %v; want waiting 1 and NaN for the rest", st, ok)
	}
	for _, name := range []string{"down", "unknown"} {
		if st, ok := m.ServerStatus(name); ok {
			t.Errorf("%s: %+v, want none", name, st)
		}
	}
	m.now = func() time.Time { return time.Now().Add(3 * time.Hour) } // past 2 x interval + timeout
	if st, ok := m.ServerStatus("two"); ok {
		t.Errorf("stale data served as current: %+v", st)
	}
}
