package backend

// TGI is the backend: of a target that runs it.
const TGI = "tgi"

// Hugging Face TGI. No model or engine labels (the target's configured
// model is used). Token counts exist only as per-request histograms, whose
// _sum is re-exported as the counter. TGI has no TTFT histogram.
func init() {
	register(&Backend{
		Name:     TGI,
		Title:    "TGI",
		Rank:     3,
		Tokenize: []Dialect{TokenizeTGI},
		Prefixes: []string{"tgi_"},
		Rules: []Rule{
			{Family: RequestsRunning, Sources: []Source{{Name: "tgi_batch_current_size"}}},
			{Family: RequestsWaiting, Sources: []Source{{Name: "tgi_queue_size"}}},
			{Family: PromptTokens, Sources: []Source{{Name: "tgi_request_input_length", HistogramSum: true}}},
			{Family: GenerationTokens, Sources: []Source{{Name: "tgi_request_generated_tokens", HistogramSum: true}}},
			{Family: RequestsFinished, All: true, Sources: []Source{
				{Name: "tgi_request_success", Const: map[string]string{"reason": "success"}},
				{Name: "tgi_request_failure", Labels: map[string][]string{"reason": {"err"}}},
			}},
			// Per-request mean, prefill included: closer to TPOT than ITL.
			{Family: TPOT, Sources: []Source{{Name: "tgi_request_mean_time_per_token_duration"}}},
			{Family: E2E, Sources: []Source{{Name: "tgi_request_duration"}}},
			{Family: QueueTime, Sources: []Source{{Name: "tgi_request_queue_duration"}}},
			{Family: ReqPromptTokens, Sources: []Source{{Name: "tgi_request_input_length"}}},
			{Family: ReqGenTokens, Sources: []Source{{Name: "tgi_request_generated_tokens"}}},
			// Prefill and decode of a request, queue excluded.
			{Family: InferenceTime, Sources: []Source{{Name: "tgi_request_inference_duration"}}},
		},
	})
}
