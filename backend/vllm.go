package backend

// VLLM is the backend: of a target that runs it.
const VLLM = "vllm"

// vLLM: current V1 names first, then the legacy names they replaced (the
// first name present wins, chosen by presence because hidden metrics can
// be re-enabled on newer servers). Ray Serve writes vllm_ for vllm:.
func init() {
	register(&Backend{
		Name:        VLLM,
		Title:       "vLLM",
		Rank:        1,
		Tokenize:    []Dialect{TokenizeVLLM},
		Caps:        Caps{CacheSalt: true},
		Prefixes:    []string{"vllm:", "vllm_"},
		Aliases:     map[string]string{"vllm_": "vllm:"},
		ModelLabels: []string{"model_name"},
		Engine:      labelEngine("engine"), // V0 has none: ""
		Rules: []Rule{
			{Family: KVCacheUsage, Sources: []Source{{Name: "vllm:kv_cache_usage_perc"}, {Name: "vllm:gpu_cache_usage_perc"}}},
			{Family: RequestsRunning, Sources: []Source{{Name: "vllm:num_requests_running"}}},
			{Family: RequestsWaiting, Sources: []Source{{Name: "vllm:num_requests_waiting"}}},
			{Family: Preemptions, Sources: []Source{{Name: "vllm:num_preemptions_total"}}},
			{Family: PrefixCacheQueries, Sources: []Source{{Name: "vllm:prefix_cache_queries_total"}, {Name: "vllm:gpu_prefix_cache_queries_total"}}},
			{Family: PrefixCacheHits, Sources: []Source{{Name: "vllm:prefix_cache_hits_total"}, {Name: "vllm:gpu_prefix_cache_hits_total"}}},
			// V0 only had a gauge; it is not turned into a counter.
			{Family: PrefixCacheHitRatio, Sources: []Source{{Name: "vllm:gpu_prefix_cache_hit_rate"}}},
			{Family: SpecDrafts, Sources: []Source{{Name: "vllm:spec_decode_num_drafts_total"}}},
			{Family: SpecDraftTokens, Sources: []Source{{Name: "vllm:spec_decode_num_draft_tokens_total"}}},
			{Family: SpecAcceptedTokens, Sources: []Source{{Name: "vllm:spec_decode_num_accepted_tokens_total"}}},
			{Family: SpecAcceptedPerPos, Sources: []Source{{Name: "vllm:spec_decode_num_accepted_tokens_per_pos_total",
				Labels: map[string][]string{"position": {"position"}}}}},
			{Family: PromptTokens, Sources: []Source{{Name: "vllm:prompt_tokens_total"}}},
			{Family: GenerationTokens, Sources: []Source{{Name: "vllm:generation_tokens_total"}}},
			// Simulators write finish_reason instead of finished_reason.
			{Family: RequestsFinished, Sources: []Source{{Name: "vllm:request_success_total",
				Labels: map[string][]string{"reason": {"finished_reason", "finish_reason"}}}}},
			{Family: TTFT, Sources: []Source{{Name: "vllm:time_to_first_token_seconds"}}},
			// time_per_output_token_seconds was really per-step ITL.
			{Family: ITL, Sources: []Source{{Name: "vllm:inter_token_latency_seconds"}, {Name: "vllm:time_per_output_token_seconds"}}},
			{Family: TPOT, Sources: []Source{{Name: "vllm:request_time_per_output_token_seconds"}}},
			{Family: E2E, Sources: []Source{{Name: "vllm:e2e_request_latency_seconds"}}},
			{Family: QueueTime, Sources: []Source{{Name: "vllm:request_queue_time_seconds"}}},
			{Family: ReqPromptTokens, Sources: []Source{{Name: "vllm:request_prompt_tokens"}}},
			{Family: ReqGenTokens, Sources: []Source{{Name: "vllm:request_generation_tokens"}}},
			{Family: PrefillTime, Sources: []Source{{Name: "vllm:request_prefill_time_seconds"}}},
			{Family: DecodeTime, Sources: []Source{{Name: "vllm:request_decode_time_seconds"}}},
			{Family: InferenceTime, Sources: []Source{{Name: "vllm:request_inference_time_seconds"}}},
			// A histogram despite the _total in its name.
			{Family: IterationTokens, Sources: []Source{{Name: "vllm:iteration_tokens_total"}}},
			{Family: KVBlocks, Sources: []Source{{Name: "vllm:cache_config_info", ValueLabel: "num_gpu_blocks"}}},
			{Family: KVBlockSize, Sources: []Source{{Name: "vllm:cache_config_info", ValueLabel: "block_size"}}},
			{Family: WaitingByReason, Sources: []Source{{Name: "vllm:num_requests_waiting_by_reason",
				Labels: map[string][]string{"reason": {"reason"}}}}},
			{Family: LoRAInfo, Sources: []Source{{Name: "vllm:lora_requests_info", Labels: map[string][]string{
				"max_lora": {"max_lora"}, "running_adapters": {"running_lora_adapters"}, "waiting_adapters": {"waiting_lora_adapters"}}}}},
			// Only a single API server exports process_* (not multiprocess mode).
			{Family: StartTime, Sources: []Source{{Name: "process_start_time_seconds"}}},
		},
	})
}
