package backend

// Family names a normalised server family that rules feed; package
// collector defines its type, help and extra labels (docs/server-metrics.md
// lists them with their sources per backend).
type Family string

// The normalised families.
const (
	KVCacheUsage        Family = "llm_prober_server_kv_cache_usage_ratio"
	PrefixCacheHitRatio Family = "llm_prober_server_prefix_cache_hit_ratio"
	RequestsRunning     Family = "llm_prober_server_requests_running"
	RequestsWaiting     Family = "llm_prober_server_requests_waiting"
	Preemptions         Family = "llm_prober_server_preemptions_total"
	PrefixCacheQueries  Family = "llm_prober_server_prefix_cache_queries_total"
	PrefixCacheHits     Family = "llm_prober_server_prefix_cache_hits_total"
	SpecDrafts          Family = "llm_prober_server_spec_decode_drafts_total"
	SpecDraftTokens     Family = "llm_prober_server_spec_decode_draft_tokens_total"
	SpecAcceptedTokens  Family = "llm_prober_server_spec_decode_accepted_tokens_total"
	SpecAcceptedPerPos  Family = "llm_prober_server_spec_decode_accepted_tokens_per_position_total"
	PromptTokens        Family = "llm_prober_server_prompt_tokens_total"
	GenerationTokens    Family = "llm_prober_server_generation_tokens_total"
	RequestsFinished    Family = "llm_prober_server_requests_finished_total"
	TTFT                Family = "llm_prober_server_time_to_first_token_seconds"
	ITL                 Family = "llm_prober_server_inter_token_latency_seconds"
	TPOT                Family = "llm_prober_server_time_per_output_token_seconds"
	E2E                 Family = "llm_prober_server_e2e_request_latency_seconds"
	QueueTime           Family = "llm_prober_server_request_queue_time_seconds"
	ReqPromptTokens     Family = "llm_prober_server_request_prompt_tokens"
	ReqGenTokens        Family = "llm_prober_server_request_generation_tokens"
	PrefillTime         Family = "llm_prober_server_request_prefill_time_seconds"
	DecodeTime          Family = "llm_prober_server_request_decode_time_seconds"
	InferenceTime       Family = "llm_prober_server_request_inference_time_seconds"
	IterationTokens     Family = "llm_prober_server_iteration_tokens"
	KVBlocks            Family = "llm_prober_server_kv_cache_blocks"
	KVBlockSize         Family = "llm_prober_server_kv_cache_block_size_tokens"
	WaitingByReason     Family = "llm_prober_server_requests_waiting_by_reason"
	LoRAInfo            Family = "llm_prober_server_lora_requests_info"
	StartTime           Family = "llm_prober_server_start_time_seconds"
)
