package collector

import "github.com/llm-prober/llm-prober/config"

// Hugging Face TGI. No model or engine labels (the target's configured
// model is used). Token counts exist only as per-request histograms, whose
// _sum is re-exported as the counter. TGI has no TTFT histogram.
func init() {
	register(&Mapping{
		Backend:  config.BackendTGI,
		Prefixes: []string{"tgi_"},
		Rules: []Rule{
			{Family: famRequestsRunning, Sources: []Source{{Name: "tgi_batch_current_size"}}},
			{Family: famRequestsWaiting, Sources: []Source{{Name: "tgi_queue_size"}}},
			{Family: famPromptTokens, Sources: []Source{{Name: "tgi_request_input_length", HistogramSum: true}}},
			{Family: famGenerationTokens, Sources: []Source{{Name: "tgi_request_generated_tokens", HistogramSum: true}}},
			{Family: famRequestsFinished, All: true, Sources: []Source{
				{Name: "tgi_request_success", Const: map[string]string{"reason": "success"}},
				{Name: "tgi_request_failure", Labels: map[string][]string{"reason": {"err"}}},
			}},
			// Per-request mean, prefill included: closer to TPOT than ITL.
			{Family: famTPOT, Sources: []Source{{Name: "tgi_request_mean_time_per_token_duration"}}},
			{Family: famE2E, Sources: []Source{{Name: "tgi_request_duration"}}},
			{Family: famQueueTime, Sources: []Source{{Name: "tgi_request_queue_duration"}}},
			{Family: famReqPromptTokens, Sources: []Source{{Name: "tgi_request_input_length"}}},
			{Family: famReqGenTokens, Sources: []Source{{Name: "tgi_request_generated_tokens"}}},
			// Prefill and decode of a request, queue excluded.
			{Family: famInferenceTime, Sources: []Source{{Name: "tgi_request_inference_duration"}}},
		},
	})
}
