package backend

// Dialect is one server family's POST /tokenize: the body it takes and
// the answer it gives (package prompt speaks them).
type Dialect string

const (
	// TokenizeVLLM: {"model","prompt"}, or {"model","messages"} through
	// the chat template → {"count","tokens","max_model_len"}. SGLang
	// answers alike.
	TokenizeVLLM Dialect = "vllm"
	// TokenizeLlamaCPP: {"content","add_special"} → {"tokens"}.
	// llama-server answers vLLM's body with 200 {"tokens":[]}: no answer,
	// not 0 tokens.
	TokenizeLlamaCPP Dialect = "llamacpp"
	// TokenizeTGI: {"inputs"} → [{"id","text","start","stop"}, ...].
	TokenizeTGI Dialect = "tgi"
)
