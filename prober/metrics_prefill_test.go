package prober

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
)

var prefillFamilies = []string{
	"llm_prober_paired_time_to_first_token_seconds",
	"llm_prober_prefill_cache_speedup_ratio",
	"llm_prober_prefill_tokens_per_second",
	"llm_prober_prompt_length_tokens",
}

// prefillRegistry holds a paired module with prompt_tokens after one
// pair, a cold module without prompt_tokens and a plain warm module.
func prefillRegistry() prometheus.Gatherer {
	reg := prometheus.NewPedanticRegistry()
	m := NewMetrics(reg)
	target := &config.Target{Name: "vllm-a", Model: "llama", Interval: modelDuration(15 * time.Second)}
	paired := &config.Module{Name: "prefill_2048", Cache: config.CachePaired, PromptTokens: 2048}
	cold := &config.Module{Name: "cold", Cache: config.CacheCold}
	plain := &config.Module{Name: "chat"}
	for _, mod := range []*config.Module{paired, cold, plain} {
		m.InitSchedule(target, mod)
	}
	end := time.Unix(1700000000, 0)
	warm := &Result{ID: "abc-warm", TTFT: 40 * time.Millisecond, PromptTokens: 2048, CachedTokens: 2032, OutputTokens: 4}
	m.Record(&Result{ID: "abc", Target: "vllm-a", Model: "llama", Module: "prefill_2048",
		TTFT: 400 * time.Millisecond, E2EL: 500 * time.Millisecond, HasTTFT: true, OutputTokens: 4, PromptTokens: 2048,
		Good: true, Prefill: &PrefillResult{Cache: config.CachePaired, PromptTarget: 2048, Salted: true, Warm: warm}}, end)
	m.Record(&Result{ID: "def", Target: "vllm-a", Model: "llama", Module: "cold",
		TTFT: 100 * time.Millisecond, E2EL: 200 * time.Millisecond, HasTTFT: true, OutputTokens: 4, PromptTokens: 30,
		Good: true, Prefill: &PrefillResult{Cache: config.CacheCold}}, end)
	m.Record(&Result{ID: "ghi", Target: "vllm-a", Model: "llama", Module: "chat",
		TTFT: 100 * time.Millisecond, E2EL: 200 * time.Millisecond, HasTTFT: true, OutputTokens: 4, Good: true}, end)
	return prometheus.Gatherers{reg, m}
}

// The prefill families are pinned by their own golden file (the shared
// one holds none of them): regenerate with UPDATE_GOLDEN=1.
func TestPrefillMetricsGolden(t *testing.T) {
	reg := prefillRegistry()
	compareGolden(t, reg, "testdata/prefill.golden", prefillFamilies...)
	lintMetrics(t, reg, prefillFamilies...)
}
