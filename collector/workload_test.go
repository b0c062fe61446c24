package collector

import (
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

func normalizeText(t *testing.T, b config.Backend, text string) map[string]sample {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	out, dropped := normalize(registry[b], fams, "configured")
	if dropped != 0 {
		t.Fatalf("%d dropped", dropped)
	}
	m := map[string]sample{}
	for _, s := range out {
		m[s.fam.name+"{"+strings.Join(s.labels, ",")+"}"] = s
	}
	return m
}

// SGLang's token histograms (--collect-tokens-histogram) and its page
// configuration feed the workload and KV-size families.
func TestSGLangWorkloadFamilies(t *testing.T) {
	got := normalizeText(t, backend.SGLang, `# TYPE sglang:prompt_tokens_histogram histogram
sglang:prompt_tokens_histogram_bucket{model_name="qwen",le="100.0"} 3
sglang:prompt_tokens_histogram_bucket{model_name="qwen",le="+Inf"} 5
sglang:prompt_tokens_histogram_sum{model_name="qwen"} 900
sglang:prompt_tokens_histogram_count{model_name="qwen"} 5
# TYPE sglang:generation_tokens_histogram histogram
sglang:generation_tokens_histogram_bucket{model_name="qwen",le="+Inf"} 5
sglang:generation_tokens_histogram_sum{model_name="qwen"} 640
sglang:generation_tokens_histogram_count{model_name="qwen"} 5
# TYPE sglang:cache_config_info gauge
sglang:cache_config_info{num_pages="8192",page_size="1"} 1
`)
	p, ok := got["llm_prober_server_request_prompt_tokens{qwen,}"]
	if !ok || p.hist.count != 5 || p.hist.sum != 900 || p.hist.buckets[100] != 3 {
		t.Errorf("prompt tokens: %+v (%v)", p.hist, keys(got))
	}
	if g := got["llm_prober_server_request_generation_tokens{qwen,}"]; g.hist == nil || g.hist.sum != 640 {
		t.Errorf("generation tokens: %+v", g.hist)
	}
	if b := got["llm_prober_server_kv_cache_blocks{configured,}"]; b.value != 8192 {
		t.Errorf("kv blocks: %v", b.value)
	}
	if b := got["llm_prober_server_kv_cache_block_size_tokens{configured,}"]; b.value != 1 {
		t.Errorf("block size: %v", b.value)
	}
}

// A cache_config_info label that is not a number is skipped, not zero.
func TestInfoLabelNotANumber(t *testing.T) {
	got := normalizeText(t, backend.VLLM, `# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{engine="0",block_size="16",num_gpu_blocks="None"} 1
`)
	if _, ok := got["llm_prober_server_kv_cache_blocks{configured,0}"]; ok {
		t.Error("num_gpu_blocks=None became a value")
	}
	if b := got["llm_prober_server_kv_cache_block_size_tokens{configured,0}"]; b.value != 16 {
		t.Errorf("block size: %v", b.value)
	}
}

func keys(m map[string]sample) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
