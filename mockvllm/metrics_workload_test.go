package mockvllm

import (
	"context"
	"io"
	"testing"
)

// The families the dashboards read beyond the latency histograms, with
// vLLM's names, labels and types.
func TestWorkloadMetrics(t *testing.T) {
	h := start(t, fastOptions())
	resp := h.post(context.Background(), "/v1/completions", map[string]any{
		"prompt": "one two three four", "max_tokens": 5, "stream": true, "ignore_eos": true})
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()

	mf := h.metrics()
	steps := mf["vllm:iteration_tokens_total"].GetMetric()[0].GetHistogram()
	// One prefill step plus at least one decode step, 4 + 5 tokens in all.
	if steps.GetSampleCount() < 2 || steps.GetSampleSum() != 9 {
		t.Errorf("iteration_tokens_total: count %d sum %v, want >= 2 and 9", steps.GetSampleCount(), steps.GetSampleSum())
	}
	for _, r := range []string{"capacity", "deferred"} {
		if value(mf, "vllm:num_requests_waiting_by_reason", "reason", r) < 0 {
			t.Errorf("num_requests_waiting_by_reason{reason=%q} missing", r)
		}
	}
	if value(mf, "vllm:engine_sleep_state", "sleep_state", "awake") != 1 {
		t.Error("engine_sleep_state{sleep_state=awake} should be 1")
	}
	lora := mf["vllm:lora_requests_info"].GetMetric()
	if len(lora) != 1 || labelOf(lora[0], "max_lora") != "0" || lora[0].GetGauge().GetValue() <= 0 {
		t.Errorf("lora_requests_info: %v", lora)
	}
	if mf["process_start_time_seconds"] == nil {
		t.Error("process_start_time_seconds missing")
	}
	for _, name := range []string{"vllm:request_prompt_tokens", "vllm:request_generation_tokens",
		"vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds", "vllm:request_inference_time_seconds"} {
		if mf[name].GetMetric()[0].GetHistogram().GetSampleCount() != 1 {
			t.Errorf("%s: want one observation", name)
		}
	}
}
