package backend

import (
	"strings"
)

// SGLang is the backend: of a target that runs it.
const SGLang = "sglang"

// SGLang (--enable-metrics). Scheduler series carry tp/pp/dp ranks; each
// rank combination becomes its own engine value so that per-rank gauges
// are never added up. Gauges (cache_hit_rate, spec_accept_*) are not
// faked into counters.
func init() {
	register(&Backend{
		Name:        SGLang,
		Title:       "SGLang",
		Rank:        2,
		Tokenize:    []Dialect{TokenizeVLLM},
		Prefixes:    []string{"sglang:"},
		ModelLabels: []string{"model_name"},
		Engine:      sglangEngine,
		Rules: []Rule{
			{Family: KVCacheUsage, Sources: []Source{{Name: "sglang:token_usage"}}},
			{Family: RequestsRunning, Sources: []Source{{Name: "sglang:num_running_reqs"}}},
			{Family: RequestsWaiting, Sources: []Source{{Name: "sglang:num_queue_reqs"}}},
			{Family: Preemptions, Sources: []Source{{Name: "sglang:num_retracted_requests_total"}}},
			// prompt_tokens counts every prompt token of a finished
			// request, cached_tokens the cached ones (by cache_source in
			// newer releases, summed here): hits over queries per token.
			{Family: PrefixCacheQueries, Sources: []Source{{Name: "sglang:prompt_tokens_total"}}},
			{Family: PrefixCacheHits, Sources: []Source{{Name: "sglang:cached_tokens_total"}}},
			{Family: PrefixCacheHitRatio, Sources: []Source{{Name: "sglang:cache_hit_rate"}}},
			{Family: PromptTokens, Sources: []Source{{Name: "sglang:prompt_tokens_total"}}},
			{Family: GenerationTokens, Sources: []Source{{Name: "sglang:generation_tokens_total"}}},
			// num_requests_total (every finished request) is not split
			// by reason: it is reason "finished", beside the aborts, so
			// that per-request ratios (preemptions per request) have
			// their denominator. Aborts may be in both.
			{Family: RequestsFinished, Sources: []Source{{Name: "sglang:num_requests_total",
				Const: map[string]string{"reason": "finished"}}}},
			{Family: RequestsFinished, Sources: []Source{{Name: "sglang:num_aborted_requests_total",
				Const: map[string]string{"reason": "abort"}}}},
			{Family: TTFT, Sources: []Source{{Name: "sglang:time_to_first_token_seconds"}}},
			{Family: ITL, Sources: []Source{{Name: "sglang:inter_token_latency_seconds"}}},
			{Family: E2E, Sources: []Source{{Name: "sglang:e2e_request_latency_seconds"}}},
			{Family: QueueTime, Sources: []Source{{Name: "sglang:queue_time_seconds"}}},
			{Family: KVBlocks, Sources: []Source{{Name: "sglang:cache_config_info", ValueLabel: "num_pages"}}},
			{Family: KVBlockSize, Sources: []Source{{Name: "sglang:cache_config_info", ValueLabel: "page_size"}}},
			{Family: StartTime, Sources: []Source{{Name: "process_start_time_seconds"}}},
			// With --collect-tokens-histogram (tokenizer manager, model_name only).
			{Family: ReqPromptTokens, Sources: []Source{{Name: "sglang:prompt_tokens_histogram"}}},
			{Family: ReqGenTokens, Sources: []Source{{Name: "sglang:generation_tokens_histogram"}}},
		},
	})
}

// sglangEngine joins the rank labels present, e.g. "dp1-tp0".
func sglangEngine(l map[string]string) string {
	var parts []string
	for _, r := range []struct{ label, short string }{{"dp_rank", "dp"}, {"pp_rank", "pp"}, {"tp_rank", "tp"}} {
		if v, ok := l[r.label]; ok {
			parts = append(parts, r.short+v)
		}
	}
	return strings.Join(parts, "-")
}
