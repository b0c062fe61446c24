package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// kvTokens is each engine's KV-cache size in tokens: blocks × block size
// (both from the server's cache configuration, which carries no model
// label, hence the join on target and engine only).
const kvTokens = `(max by (target, engine) (llm_prober_server_kv_cache_blocks{SEL})
  * on (target, engine) max by (target, engine) (llm_prober_server_kv_cache_block_size_tokens{SEL}))`

// meanRequestTokens is the mean prompt + generation tokens of the target's
// finished requests: what one more concurrent sequence holds in KV.
const meanRequestTokens = `((sum by (target) (rate(llm_prober_server_request_prompt_tokens_sum{SEL}[$__rate_interval]))
  + sum by (target) (rate(llm_prober_server_request_generation_tokens_sum{SEL}[$__rate_interval])))
 / sum by (target) (rate(llm_prober_server_request_prompt_tokens_count{SEL}[$__rate_interval])))`

const kvUsage = `max by (target, engine) (llm_prober_server_kv_cache_usage_ratio{SEL})`

// kvAbsolute adds the KV cache in tokens and sequences, waiting requests by
// reason and the LoRA adapters to the capacity dashboard.
func kvAbsolute(b *dashboardBuilder, p *panelIDs) *dashboardBuilder {
	noSize := "The server exports no KV-cache size (vLLM's cache_config_info, SGLang's cache_config_info, TensorRT-LLM's block metrics)"
	return b.WithRow(p.row("KV cache in tokens and sequences")).
		WithPanel(p.ts("KV cache in tokens",
			"Each engine's KV-cache capacity (blocks × block size, from the server's cache configuration) and the tokens in use (usage ratio × capacity).",
			"short", 8, 8, tsOpts{min: zero},
			q{expr: e(kvTokens), legend: "capacity {{target}} engine {{engine}}"},
			q{expr: e(kvUsage + "\n* on (target, engine) " + kvTokens), legend: "in use {{target}} engine {{engine}}"}).
			NoValue(noSize)).
		WithPanel(p.ts("KV headroom in concurrent sequences",
			"Free KV tokens divided by the mean tokens (prompt + generation) of the target's finished requests: about how many more sequences of today's size fit before requests wait or get preempted. Running sequences for comparison.",
			"short", 8, 8, tsOpts{min: zero},
			q{expr: e("(1 - " + kvUsage + ")\n* on (target, engine) " + kvTokens + "\n/ on (target) group_left () " + meanRequestTokens), legend: "headroom {{target}} engine {{engine}}"},
			q{expr: e(serverSum("target, engine", `llm_prober_server_requests_running{SEL}`)), legend: "running {{target}} engine {{engine}}"}).
			NoValue(noSize)).
		WithPanel(p.stat("KV cache size",
			"Blocks and tokens per block of each engine, from the server's cache configuration.",
			"short", 8, 8, common.BigValueTextModeValueAndName, nil, thresholds("blue"),
			q{expr: e(`max by (target, engine) (llm_prober_server_kv_cache_blocks{SEL})`), legend: "blocks {{target}} engine {{engine}}", instant: true},
			q{expr: e(`max by (target, engine) (llm_prober_server_kv_cache_block_size_tokens{SEL})`), legend: "tokens/block {{target}} engine {{engine}}", instant: true}).
			NoValue(noSize)).
		WithPanel(p.ts("Waiting requests by reason",
			"Waiting requests split by why they wait, as vLLM reports it (capacity: no room in the batch or KV cache; deferred: LoRA budget, KV transfer or otherwise blocked).",
			"short", 12, 8, tsOpts{min: zero, stacked: true},
			q{expr: e(serverSum("target, model, reason", `llm_prober_server_requests_waiting_by_reason{SEL}`)), legend: "{{reason}} {{target}} {{model}}"}).
			NoValue("The server does not split waiting requests by reason (vLLM since 2026-04 does)")).
		WithPanel(p.table("LoRA adapters",
			"The current LoRA adapter set of each target: adapters of running and of waiting requests and the limit (max_lora), from the newest vllm:lora_requests_info series. Empty lists mean no LoRA request right now.",
			"short", 12, 8,
			q{expr: e(`topk by (target) (1, llm_prober_server_lora_requests_info{SEL})`), legend: "{{target}}", instant: true, table: true}).
			NoValue("No LoRA: the server runs without --enable-lora, or its backend does not export adapters").
			// The value is when the set was current, not a count.
			WithTransformation(dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{
				"excludeByName": map[string]any{"Value": true, "__name__": true, "backend": true, "engine": true},
			}}))
}
