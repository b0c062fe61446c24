package collector

import "github.com/llm-prober/llm-prober/config"

// vLLM: current V1 names first, then the legacy names they replaced (the
// first name present wins, chosen by presence because hidden metrics can
// be re-enabled on newer servers). Ray Serve writes vllm_ for vllm:.
func init() {
	register(&Mapping{
		Backend:     config.BackendVLLM,
		Prefixes:    []string{"vllm:", "vllm_"},
		Aliases:     map[string]string{"vllm_": "vllm:"},
		ModelLabels: []string{"model_name"},
		Engine:      labelEngine("engine"), // V0 has none: ""
		Rules: []Rule{
			{Family: famKVCacheUsage, Sources: []Source{{Name: "vllm:kv_cache_usage_perc"}, {Name: "vllm:gpu_cache_usage_perc"}}},
			{Family: famRequestsRunning, Sources: []Source{{Name: "vllm:num_requests_running"}}},
			{Family: famRequestsWaiting, Sources: []Source{{Name: "vllm:num_requests_waiting"}}},
			{Family: famPreemptions, Sources: []Source{{Name: "vllm:num_preemptions_total"}}},
			{Family: famPrefixCacheQueries, Sources: []Source{{Name: "vllm:prefix_cache_queries_total"}, {Name: "vllm:gpu_prefix_cache_queries_total"}}},
			{Family: famPrefixCacheHits, Sources: []Source{{Name: "vllm:prefix_cache_hits_total"}, {Name: "vllm:gpu_prefix_cache_hits_total"}}},
			// V0 only had a gauge; it is not turned into a counter.
			{Family: famPrefixCacheHitRatio, Sources: []Source{{Name: "vllm:gpu_prefix_cache_hit_rate"}}},
			{Family: famSpecDrafts, Sources: []Source{{Name: "vllm:spec_decode_num_drafts_total"}}},
			{Family: famSpecDraftTokens, Sources: []Source{{Name: "vllm:spec_decode_num_draft_tokens_total"}}},
			{Family: famSpecAcceptedTokens, Sources: []Source{{Name: "vllm:spec_decode_num_accepted_tokens_total"}}},
			{Family: famSpecAcceptedPerPos, Sources: []Source{{Name: "vllm:spec_decode_num_accepted_tokens_per_pos_total",
				Labels: map[string][]string{"position": {"position"}}}}},
			{Family: famPromptTokens, Sources: []Source{{Name: "vllm:prompt_tokens_total"}}},
			{Family: famGenerationTokens, Sources: []Source{{Name: "vllm:generation_tokens_total"}}},
			// Simulators write finish_reason instead of finished_reason.
			{Family: famRequestsFinished, Sources: []Source{{Name: "vllm:request_success_total",
				Labels: map[string][]string{"reason": {"finished_reason", "finish_reason"}}}}},
			{Family: famTTFT, Sources: []Source{{Name: "vllm:time_to_first_token_seconds"}}},
			// time_per_output_token_seconds was really per-step ITL.
			{Family: famITL, Sources: []Source{{Name: "vllm:inter_token_latency_seconds"}, {Name: "vllm:time_per_output_token_seconds"}}},
			{Family: famTPOT, Sources: []Source{{Name: "vllm:request_time_per_output_token_seconds"}}},
			{Family: famE2E, Sources: []Source{{Name: "vllm:e2e_request_latency_seconds"}}},
			{Family: famQueueTime, Sources: []Source{{Name: "vllm:request_queue_time_seconds"}}},
			{Family: famReqPromptTokens, Sources: []Source{{Name: "vllm:request_prompt_tokens"}}},
			{Family: famReqGenTokens, Sources: []Source{{Name: "vllm:request_generation_tokens"}}},
			{Family: famPrefillTime, Sources: []Source{{Name: "vllm:request_prefill_time_seconds"}}},
			{Family: famDecodeTime, Sources: []Source{{Name: "vllm:request_decode_time_seconds"}}},
			{Family: famInferenceTime, Sources: []Source{{Name: "vllm:request_inference_time_seconds"}}},
			// A histogram despite the _total in its name.
			{Family: famIterationTokens, Sources: []Source{{Name: "vllm:iteration_tokens_total"}}},
			{Family: famKVBlocks, Sources: []Source{{Name: "vllm:cache_config_info", ValueLabel: "num_gpu_blocks"}}},
			{Family: famKVBlockSize, Sources: []Source{{Name: "vllm:cache_config_info", ValueLabel: "block_size"}}},
			{Family: famWaitingByReason, Sources: []Source{{Name: "vllm:num_requests_waiting_by_reason",
				Labels: map[string][]string{"reason": {"reason"}}}}},
			{Family: famLoRAInfo, Sources: []Source{{Name: "vllm:lora_requests_info", Labels: map[string][]string{
				"max_lora": {"max_lora"}, "running_adapters": {"running_lora_adapters"}, "waiting_adapters": {"waiting_lora_adapters"}}}}},
			// Only a single API server exports process_* (not multiprocess mode).
			{Family: famStartTime, Sources: []Source{{Name: "process_start_time_seconds"}}},
		},
	})
}
