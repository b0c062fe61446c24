package collector

import "github.com/llm-prober/llm-prober/config"

// llama.cpp server (--metrics). No labels at all: model is the target's
// configured model, engine is empty. Its prompt_tokens_total excludes
// cached tokens, so both counters are added to match the other backends.
func init() {
	register(&Mapping{
		Backend:  config.BackendLlamaCPP,
		Prefixes: []string{"llamacpp:"},
		Rules: []Rule{
			// Only older builds; current ones expose KV state on /slots.
			{Family: famKVCacheUsage, Sources: []Source{{Name: "llamacpp:kv_cache_usage_ratio"}}},
			{Family: famRequestsRunning, Sources: []Source{{Name: "llamacpp:requests_processing"}}},
			{Family: famRequestsWaiting, Sources: []Source{{Name: "llamacpp:requests_deferred"}}},
			// Every prompt token is looked up in the slot's cache: the
			// queries are the uncached and the cached ones.
			{Family: famPrefixCacheQueries, All: true, Sources: []Source{
				{Name: "llamacpp:prompt_tokens_total"}, {Name: "llamacpp:prompt_tokens_cached_total"}}},
			{Family: famPrefixCacheHits, Sources: []Source{{Name: "llamacpp:prompt_tokens_cached_total"}}},
			{Family: famPromptTokens, All: true, Sources: []Source{
				{Name: "llamacpp:prompt_tokens_total"}, {Name: "llamacpp:prompt_tokens_cached_total"}}},
			{Family: famGenerationTokens, Sources: []Source{{Name: "llamacpp:tokens_predicted_total"}}},
			{Family: famSpecDrafts, Sources: []Source{{Name: "llamacpp:spec_decode_num_drafts_total"}}},
			{Family: famSpecDraftTokens, Sources: []Source{{Name: "llamacpp:spec_decode_num_draft_tokens_total"}}},
			{Family: famSpecAcceptedTokens, Sources: []Source{{Name: "llamacpp:spec_decode_num_accepted_tokens_total"}}},
			{Family: famSpecAcceptedPerPos, Sources: []Source{{Name: "llamacpp:spec_decode_num_accepted_tokens_per_pos_total",
				Labels: map[string][]string{"position": {"position"}}}}},
		},
	})
}
