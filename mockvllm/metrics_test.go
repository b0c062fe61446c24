package mockvllm

import (
	"context"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

func bounds(f *dto.MetricFamily) []float64 {
	var b []float64
	for _, bk := range f.GetMetric()[0].GetHistogram().GetBucket() {
		if !math.IsInf(bk.GetUpperBound(), 1) {
			b = append(b, bk.GetUpperBound())
		}
	}
	return b
}

func TestMetricsExposition(t *testing.T) {
	o := fastOptions()
	o.PrefixCacheHitRate = 0.5
	h := start(t, o)
	resp := h.post(context.Background(), "/v1/chat/completions", chatBody(4, map[string]any{
		"messages":       []map[string]string{{"role": "user", "content": "one two three four five six seven eight"}},
		"stream_options": map[string]any{"include_usage": true}}))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"cached_tokens":4`) {
		t.Errorf("usage should report 4 cached tokens: %s", b)
	}

	mf := h.metrics()
	types := map[string]dto.MetricType{
		"vllm:num_requests_running":        dto.MetricType_GAUGE,
		"vllm:num_requests_waiting":        dto.MetricType_GAUGE,
		"vllm:kv_cache_usage_perc":         dto.MetricType_GAUGE,
		"vllm:num_preemptions_total":       dto.MetricType_COUNTER,
		"vllm:prompt_tokens_total":         dto.MetricType_COUNTER,
		"vllm:generation_tokens_total":     dto.MetricType_COUNTER,
		"vllm:request_success_total":       dto.MetricType_COUNTER,
		"vllm:prefix_cache_queries_total":  dto.MetricType_COUNTER,
		"vllm:prefix_cache_hits_total":     dto.MetricType_COUNTER,
		"vllm:time_to_first_token_seconds": dto.MetricType_HISTOGRAM,
		"vllm:inter_token_latency_seconds": dto.MetricType_HISTOGRAM,
		"vllm:e2e_request_latency_seconds": dto.MetricType_HISTOGRAM,
		"vllm:request_queue_time_seconds":  dto.MetricType_HISTOGRAM,
		"vllm:cache_config_info":           dto.MetricType_GAUGE,
	}
	for name, typ := range types {
		f := mf[name]
		if f == nil || f.GetType() != typ {
			t.Errorf("%s: missing or wrong type (%v)", name, f.GetType())
			continue
		}
		m := f.GetMetric()[0]
		if name != "vllm:cache_config_info" && labelOf(m, "model_name") != "mock-model" {
			t.Errorf("%s: model_name label %q", name, labelOf(m, "model_name"))
		}
		if labelOf(m, "engine") != "0" {
			t.Errorf("%s: engine label %q", name, labelOf(m, "engine"))
		}
	}
	if _, ok := mf["vllm:spec_decode_num_drafts_total"]; ok {
		t.Error("spec decode families without SpecDecode")
	}
	for name, want := range map[string][]float64{
		"vllm:time_to_first_token_seconds": ttftBuckets,
		"vllm:inter_token_latency_seconds": itlBuckets,
		"vllm:e2e_request_latency_seconds": latencyBuckets,
		"vllm:request_queue_time_seconds":  latencyBuckets,
	} {
		if got := bounds(mf[name]); !slices.Equal(got, want) {
			t.Errorf("%s buckets %v", name, got)
		}
	}
	if got := bounds(mf["vllm:request_prompt_tokens"]); got[len(got)-1] != 20000 {
		t.Errorf("1-2-5 buckets up to 32768 should end at 20000: %v", got)
	}
	for _, r := range finishReasons {
		if value(mf, "vllm:request_success_total", "finished_reason", r) < 0 {
			t.Errorf("finished_reason=%s not pre-created", r)
		}
	}
	for name, want := range map[string]float64{
		"vllm:prefix_cache_queries_total": 8, "vllm:prefix_cache_hits_total": 4,
		"vllm:prompt_tokens_total": 8, "vllm:generation_tokens_total": 4,
	} {
		if got := value(mf, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	info := mf["vllm:cache_config_info"].GetMetric()[0]
	if labelOf(info, "block_size") != "16" || labelOf(info, "num_gpu_blocks") != "4096" || info.GetGauge().GetValue() != 1 {
		t.Errorf("cache_config_info: %v", info)
	}

	// Colons are valid in metric names; promlint flags them only because
	// they are meant for recording rules, and vLLM uses them anyway.
	problems, err := testutil.GatherAndLint(h.s.m.reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		// vLLM's own name for a histogram (tokens per engine step).
		if p.Metric == "vllm:iteration_tokens_total" && strings.Contains(p.Text, `"_total" suffix`) {
			continue
		}
		if !strings.Contains(p.Text, "should not contain ':'") {
			t.Errorf("lint %s: %s", p.Metric, p.Text)
		}
	}
}

func TestSpecDecodeMetrics(t *testing.T) {
	o := fastOptions()
	o.SpecDecode = &SpecOptions{NumSpeculativeTokens: 3, AcceptanceRate: 0.6}
	h := start(t, o)
	const reqs, maxTokens = 4, 30
	for range reqs {
		resp := h.post(context.Background(), "/v1/completions", map[string]any{
			"prompt": "a b", "max_tokens": maxTokens, "stream": true, "ignore_eos": true})
		st := readSSE(resp.Body)
		resp.Body.Close()
		var text string
		for _, e := range st.events[:len(st.events)-1] {
			text += decodeChunk(t, e).text()
		}
		if n := len(strings.Fields(text)); n != maxTokens {
			t.Errorf("tokens %d, want %d", n, maxTokens)
		}
	}
	mf := h.metrics()
	drafts := value(mf, "vllm:spec_decode_num_drafts_total")
	draftTok := value(mf, "vllm:spec_decode_num_draft_tokens_total")
	accepted := value(mf, "vllm:spec_decode_num_accepted_tokens_total")
	perPos := value(mf, "vllm:spec_decode_num_accepted_tokens_per_pos_total")
	itl := value(mf, "vllm:inter_token_latency_seconds")
	if drafts <= 0 || draftTok != 3*drafts || accepted != perPos || accepted <= 0 {
		t.Errorf("drafts %v draft tokens %v accepted %v per-pos sum %v", drafts, draftTok, accepted, perPos)
	}
	// Every decode step carries a draft: ITL count == drafts, and tokens =
	// one per request from prefill + (1 + accepted) per decode step.
	if itl != drafts || value(mf, "vllm:generation_tokens_total") != reqs+drafts+accepted {
		t.Errorf("itl count %v drafts %v accepted %v", itl, drafts, accepted)
	}
	if got := len(mf["vllm:spec_decode_num_accepted_tokens_per_pos_total"].GetMetric()); got != 3 {
		t.Errorf("positions: %d", got)
	}
	p0 := value(mf, "vllm:spec_decode_num_accepted_tokens_per_pos_total", "position", "0")
	p2 := value(mf, "vllm:spec_decode_num_accepted_tokens_per_pos_total", "position", "2")
	if p0 < p2 {
		t.Errorf("acceptance should fall with position: pos0 %v pos2 %v", p0, p2)
	}
}
