package collector

import (
	"net/http"
	"testing"

	"github.com/llm-prober/llm-prober/config"
)

// Gauges (and counters) of NaN or ±Inf are dropped and counted, never
// re-exported (issue 32: they were, and poisoned sums over targets).
func TestNonFiniteGaugesDropped(t *testing.T) {
	body := "# TYPE vllm:num_requests_running gauge\n" +
		"vllm:num_requests_running{model_name=\"ok\"} 3\n" +
		"vllm:num_requests_running{model_name=\"nan\"} NaN\n" +
		"vllm:num_requests_running{model_name=\"inf\"} +Inf\n" +
		"# TYPE vllm:num_requests_waiting gauge\n" +
		"vllm:num_requests_waiting{model_name=\"ok\"} -Inf\n"
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) })
	m, reg := newTestManager(t)
	m.Apply([]*config.Target{target("g", srv.URL)})
	waitScrapes(t, m, "g", 1)
	s := series(t, reg, "llm_prober_server_requests_running", nil)
	if len(s) != 1 || s[0].GetGauge().GetValue() != 3 {
		t.Errorf("re-exported requests_running = %v, want only the finite 3", s)
	}
	if w := series(t, reg, "llm_prober_server_requests_waiting", nil); len(w) != 0 {
		t.Errorf("-Inf requests_waiting re-exported: %v", w)
	}
	d := series(t, reg, "llm_prober_server_metrics_dropped_series_total", map[string]string{"reason": "non_finite"})
	if len(d) != 1 || d[0].GetCounter().GetValue() != 3 {
		t.Errorf("dropped{reason=non_finite} = %v, want 3", d)
	}
}
