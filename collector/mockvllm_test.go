package collector

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// End to end: the mock vLLM server serves a request, and the counters and
// histograms it reports come out under our names with the mock's labels.
func TestMockVLLMEndToEnd(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: time.Millisecond}
	mock := mockvllm.New(o)
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close)

	body := `{"model":"mock-model","prompt":"one two three","max_tokens":5,"ignore_eos":true}`
	resp, err := http.Post(srv.URL+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("completion: %s", resp.Status)
	}

	m, reg := newTestManager(t)
	tg := target("mock", srv.URL)
	tg.ServerMetrics.Interval = model.Duration(time.Hour)
	m.Apply([]*config.Target{tg})
	waitScrapes(t, m, "mock", 1)

	want := map[string]string{"target": "mock", "backend": "vllm", "model": "mock-model"}
	for _, name := range []string{
		"llm_prober_server_kv_cache_usage_ratio", "llm_prober_server_requests_running",
		"llm_prober_server_requests_waiting", "llm_prober_server_preemptions_total",
		"llm_prober_server_prefix_cache_queries_total", "llm_prober_server_prefix_cache_hits_total",
		"llm_prober_server_time_to_first_token_seconds", "llm_prober_server_inter_token_latency_seconds",
		"llm_prober_server_e2e_request_latency_seconds", "llm_prober_server_request_queue_time_seconds",
	} {
		if len(series(t, reg, name, want)) == 0 {
			t.Errorf("%s missing for the mock", name)
		}
	}
	gen := series(t, reg, "llm_prober_server_generation_tokens_total", want)
	if len(gen) != 1 || gen[0].GetCounter().GetValue() != 5 {
		t.Errorf("generation_tokens_total = %v, want 5", gen)
	}
	e2e := series(t, reg, "llm_prober_server_e2e_request_latency_seconds", want)
	if len(e2e) != 1 || e2e[0].GetHistogram().GetSampleCount() != 1 {
		t.Errorf("e2e histogram = %v, want one observation", e2e)
	}
	if problems, err := testutil.GatherAndLint(reg); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
}
