package backend

// TRTLLM is the backend: of a target that runs it.
const TRTLLM = "trtllm"

// TensorRT-LLM, both trtllm-serve (trtllm_*, labels model_name and
// engine_type; engine_type is summed away) and Triton with the TRT-LLM
// backend (nv_trt_llm_* and nv_inference_*, labels model and version; the
// model version becomes engine). trtllm-serve names are listed first.
// Neither serves /tokenize: prompts are sized from usage.
func init() {
	register(&Backend{
		Name:        TRTLLM,
		Title:       "TensorRT-LLM",
		Rank:        5,
		Prefixes:    []string{"trtllm_", "nv_trt_llm_", "nv_inference_"},
		ModelLabels: []string{"model_name", "model"},
		Engine:      labelEngine("version"),
		Rules: []Rule{
			{Family: KVCacheUsage, Sources: []Source{
				{Name: "trtllm_kv_cache_utilization"},
				{Name: "nv_trt_llm_kv_cache_block_metrics", Match: map[string]string{"kv_cache_block_type": "fraction"}},
			}},
			{Family: RequestsRunning, Sources: []Source{
				{Name: "trtllm_num_requests_running"},
				{Name: "nv_trt_llm_request_metrics", Match: map[string]string{"request_type": "scheduled"}},
			}},
			{Family: RequestsWaiting, Sources: []Source{
				{Name: "trtllm_num_requests_waiting"},
				{Name: "nv_trt_llm_request_metrics", Match: map[string]string{"request_type": "waiting"}},
				{Name: "nv_inference_pending_request_count"},
			}},
			{Family: PrefixCacheHitRatio, Sources: []Source{{Name: "trtllm_kv_cache_hit_rate"}}},
			{Family: PromptTokens, Sources: []Source{{Name: "trtllm_prompt_tokens_total"}}},
			{Family: GenerationTokens, Sources: []Source{{Name: "trtllm_generation_tokens_total"}}},
			{Family: SpecDraftTokens, Sources: []Source{{Name: "trtllm_spec_decode_num_draft_tokens_total"}}},
			{Family: SpecAcceptedTokens, Sources: []Source{{Name: "trtllm_spec_decode_num_accepted_tokens_total"}}},
			{Family: RequestsFinished, Sources: []Source{{Name: "trtllm_request_success_total",
				Labels: map[string][]string{"reason": {"finished_reason"}}}}},
			{Family: RequestsFinished, All: true, Sources: []Source{
				{Name: "nv_inference_request_success", Const: map[string]string{"reason": "success"}},
				{Name: "nv_inference_request_failure", Labels: map[string][]string{"reason": {"reason"}},
					Const: map[string]string{"reason": "failure"}},
			}},
			{Family: TTFT, Sources: []Source{
				{Name: "trtllm_time_to_first_token_seconds"},
				// Opt-in in Triton, in ms: bounds and sum are scaled to seconds.
				{Name: "nv_inference_first_response_histogram_ms", Scale: 0.001},
			}},
			{Family: TPOT, Sources: []Source{{Name: "trtllm_time_per_output_token_seconds"}}},
			{Family: E2E, Sources: []Source{{Name: "trtllm_e2e_request_latency_seconds"}}},
			{Family: QueueTime, Sources: []Source{{Name: "trtllm_request_queue_time_seconds"}}},
			{Family: KVBlocks, Sources: []Source{
				{Name: "trtllm_kv_cache_max_blocks"},
				{Name: "nv_trt_llm_kv_cache_block_metrics", Match: map[string]string{"kv_cache_block_type": "max"}},
			}},
			{Family: KVBlockSize, Sources: []Source{
				{Name: "trtllm_kv_cache_tokens_per_block"},
				{Name: "nv_trt_llm_kv_cache_block_metrics", Match: map[string]string{"kv_cache_block_type": "tokens_per"}},
			}},
		},
	})
}
