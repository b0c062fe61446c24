package serverwatch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// Server signals are reported whenever they appear during the run: vLLM
// creates the prefix-cache counters and the queue-time histogram on first
// use, after the "before" scrape, and they start from 0.
func TestServerSignalsAppearingMidRun(t *testing.T) {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		k := n.Add(1)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "vllm:num_requests_running{model_name=\"m\"} 1\nvllm:num_requests_waiting{model_name=\"m\"} 0\n")
		fmt.Fprintf(w, "vllm:kv_cache_usage_perc{model_name=\"m\"} 0.1\n")
		if k > 1 { // born after the first scrape
			fmt.Fprintf(w, "vllm:prefix_cache_queries_total{model_name=\"m\"} %d\n", 100*(k-1))
			fmt.Fprintf(w, "vllm:prefix_cache_hits_total{model_name=\"m\"} %d\n", 25*(k-1))
			fmt.Fprintf(w, "# TYPE vllm:request_queue_time_seconds histogram\n")
			fmt.Fprintf(w, "vllm:request_queue_time_seconds_bucket{model_name=\"m\",le=\"+Inf\"} %d\n", 10*(k-1))
			fmt.Fprintf(w, "vllm:request_queue_time_seconds_sum{model_name=\"m\"} %g\n", 0.02*float64(k-1))
			fmt.Fprintf(w, "vllm:request_queue_time_seconds_count{model_name=\"m\"} %d\n", 10*(k-1))
		}
	}))
	t.Cleanup(ts.Close)
	tg := &config.Target{Name: "t", URL: ts.URL, Model: "m", Backend: backend.Auto}
	w := Watch(t.Context(), ts.Client(), tg, 20*time.Millisecond)
	for n.Load() < 4 {
		time.Sleep(5 * time.Millisecond)
	}
	rep := w.Stop(t.Context())
	if !rep.Available {
		t.Fatalf("server report %+v", rep)
	}
	if rep.PrefixHitRate != 0.25 {
		t.Errorf("prefix-cache hit rate %g, want 0.25 from counters born mid-run", rep.PrefixHitRate)
	}
	if rep.MeanQueueTime != 2*time.Millisecond {
		t.Errorf("mean queue time %v, want 2ms", rep.MeanQueueTime)
	}
}
