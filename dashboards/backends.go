package dashboards

import (
	"regexp"
	"slices"
	"strings"
)

// serverBackends says which backends feed each re-exported family (the
// collector's mapping tables, docs/server-metrics.md). The docs test fails
// when a panel reads a family missing here.
var serverBackends = map[string][]string{
	"llm_prober_server_kv_cache_usage_ratio":                           {"vLLM", "SGLang", "llama.cpp (old builds)", "TensorRT-LLM"},
	"llm_prober_server_requests_running":                               {"vLLM", "SGLang", "TGI", "llama.cpp", "TensorRT-LLM"},
	"llm_prober_server_requests_waiting":                               {"vLLM", "SGLang", "TGI", "llama.cpp", "TensorRT-LLM"},
	"llm_prober_server_preemptions_total":                              {"vLLM", "SGLang"},
	"llm_prober_server_prefix_cache_queries_total":                     {"vLLM", "SGLang", "llama.cpp"},
	"llm_prober_server_prefix_cache_hits_total":                        {"vLLM", "SGLang", "llama.cpp"},
	"llm_prober_server_spec_decode_drafts_total":                       {"vLLM", "llama.cpp"},
	"llm_prober_server_spec_decode_draft_tokens_total":                 {"vLLM", "llama.cpp", "TensorRT-LLM"},
	"llm_prober_server_spec_decode_accepted_tokens_total":              {"vLLM", "llama.cpp", "TensorRT-LLM"},
	"llm_prober_server_spec_decode_accepted_tokens_per_position_total": {"vLLM", "llama.cpp"},
	"llm_prober_server_prompt_tokens_total":                            {"vLLM", "SGLang", "TGI", "llama.cpp", "TensorRT-LLM"},
	"llm_prober_server_generation_tokens_total":                        {"vLLM", "SGLang", "TGI", "llama.cpp", "TensorRT-LLM"},
	"llm_prober_server_requests_finished_total":                        {"vLLM", "SGLang", "TGI", "TensorRT-LLM"},
	"llm_prober_server_time_to_first_token_seconds":                    {"vLLM", "SGLang", "TensorRT-LLM"},
	"llm_prober_server_inter_token_latency_seconds":                    {"vLLM", "SGLang"},
	"llm_prober_server_time_per_output_token_seconds":                  {"vLLM", "TGI", "TensorRT-LLM"},
	"llm_prober_server_e2e_request_latency_seconds":                    {"vLLM", "SGLang", "TGI", "TensorRT-LLM"},
	"llm_prober_server_request_queue_time_seconds":                     {"vLLM", "SGLang", "TGI", "TensorRT-LLM"},
	"llm_prober_server_request_prompt_tokens":                          {"vLLM", "SGLang (--collect-tokens-histogram)", "TGI"},
	"llm_prober_server_request_generation_tokens":                      {"vLLM", "SGLang (--collect-tokens-histogram)", "TGI"},
	"llm_prober_server_request_prefill_time_seconds":                   {"vLLM"},
	"llm_prober_server_request_decode_time_seconds":                    {"vLLM"},
	"llm_prober_server_request_inference_time_seconds":                 {"vLLM", "TGI"},
	"llm_prober_server_iteration_tokens":                               {"vLLM"},
	"llm_prober_server_kv_cache_blocks":                                {"vLLM", "SGLang", "TensorRT-LLM"},
	"llm_prober_server_kv_cache_block_size_tokens":                     {"vLLM", "SGLang", "TensorRT-LLM"},
	"llm_prober_server_requests_waiting_by_reason":                     {"vLLM"},
	"llm_prober_server_lora_requests_info":                             {"vLLM (--enable-lora)"},
	"llm_prober_server_start_time_seconds":                             {"vLLM (single API server)", "SGLang"},
}

var familyRe = regexp.MustCompile(`[a-z_:]*llm_prober_[a-z0-9_:]+|DCGM_[A-Z_]+`)

// feeds lists what feeds a set of queries: the probes (any backend), the
// servers' re-exported families, recording rules, DCGM exporter.
func feeds(exprs []string) (string, []string) {
	var out, unknown []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	var all, some []string // backends feeding every / some server family used
	first := true
	for _, x := range exprs {
		for _, m := range familyRe.FindAllString(x, -1) {
			switch {
			case strings.HasPrefix(m, "DCGM_"):
				add("DCGM exporter")
			case strings.Contains(m, ":"):
				add("recording rules (alerts/llm-prober-rules.yml)")
			case m == "llm_prober_target_info":
				add("the targets' labels (llm_prober_target_info)")
			case strings.HasPrefix(m, "llm_prober_server_scrape") || m == "llm_prober_server_backend_info":
				add("llm-prober's scrape of any backend")
			case strings.HasPrefix(m, "llm_prober_server_"):
				b, ok := serverBackends[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_sum"), "_count")]
				if !ok {
					unknown = append(unknown, m)
					continue
				}
				b = baseNames(b)
				for _, x := range b {
					if !slices.Contains(some, x) {
						some = append(some, x)
					}
				}
				if first {
					all, first = slices.Clone(b), false
				} else {
					all = slices.DeleteFunc(all, func(s string) bool { return !slices.Contains(b, s) })
				}
			default:
				add("probes (any backend)")
			}
		}
	}
	if !first {
		some = slices.DeleteFunc(some, func(s string) bool { return slices.Contains(all, s) })
		var parts []string
		if len(all) > 0 {
			parts = append(parts, strings.Join(all, ", "))
		}
		if len(some) > 0 {
			parts = append(parts, "partly "+strings.Join(some, ", "))
		}
		add("server metrics: " + strings.Join(parts, "; "))
	}
	return strings.Join(out, "; "), unknown
}

// baseNames drops the qualifiers, "SGLang (aborts only)" -> "SGLang":
// docs/server-metrics.md has the details.
func baseNames(b []string) []string {
	out := make([]string, len(b))
	for i, x := range b {
		out[i], _, _ = strings.Cut(x, " (")
	}
	return out
}
