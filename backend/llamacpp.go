package backend

// LlamaCPP is the backend: of a target that runs it.
const LlamaCPP = "llamacpp"

// llama.cpp server (--metrics). No labels at all: model is the target's
// configured model, engine is empty. Its prompt_tokens_total excludes
// cached tokens, so both counters are added to match the other backends.
func init() {
	register(&Backend{
		Name:     LlamaCPP,
		Title:    "llama.cpp",
		Rank:     4,
		Tokenize: []Dialect{TokenizeLlamaCPP},
		Prefixes: []string{"llamacpp:"},
		Rules: []Rule{
			// Only older builds; current ones expose KV state on /slots.
			{Family: KVCacheUsage, Sources: []Source{{Name: "llamacpp:kv_cache_usage_ratio"}}},
			{Family: RequestsRunning, Sources: []Source{{Name: "llamacpp:requests_processing"}}},
			{Family: RequestsWaiting, Sources: []Source{{Name: "llamacpp:requests_deferred"}}},
			// Every prompt token is looked up in the slot's cache: the
			// queries are the uncached and the cached ones.
			{Family: PrefixCacheQueries, All: true, Sources: []Source{
				{Name: "llamacpp:prompt_tokens_total"}, {Name: "llamacpp:prompt_tokens_cached_total"}}},
			{Family: PrefixCacheHits, Sources: []Source{{Name: "llamacpp:prompt_tokens_cached_total"}}},
			{Family: PromptTokens, All: true, Sources: []Source{
				{Name: "llamacpp:prompt_tokens_total"}, {Name: "llamacpp:prompt_tokens_cached_total"}}},
			{Family: GenerationTokens, Sources: []Source{{Name: "llamacpp:tokens_predicted_total"}}},
			{Family: SpecDrafts, Sources: []Source{{Name: "llamacpp:spec_decode_num_drafts_total"}}},
			{Family: SpecDraftTokens, Sources: []Source{{Name: "llamacpp:spec_decode_num_draft_tokens_total"}}},
			{Family: SpecAcceptedTokens, Sources: []Source{{Name: "llamacpp:spec_decode_num_accepted_tokens_total"}}},
			{Family: SpecAcceptedPerPos, Sources: []Source{{Name: "llamacpp:spec_decode_num_accepted_tokens_per_pos_total",
				Labels: map[string][]string{"position": {"position"}}}}},
		},
	})
}
