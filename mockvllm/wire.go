package mockvllm

// JSON shapes written by the server, field order as vLLM emits them.

type usage struct {
	PromptTokens        int          `json:"prompt_tokens"`
	CompletionTokens    int          `json:"completion_tokens"`
	TotalTokens         int          `json:"total_tokens"`
	PromptTokensDetails tokenDetails `json:"prompt_tokens_details"`
}

type tokenDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type delta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

type chatChunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
}

type textChunkChoice struct {
	Index        int     `json:"index"`
	Text         string  `json:"text"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
}

// chunk is one streamed event; Choices holds chat or text choices.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices any    `json:"choices"`
	Usage   *usage `json:"usage"`
}

type chatMessageOut struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []any  `json:"tool_calls"`
}

type chatChoice struct {
	Index        int            `json:"index"`
	Message      chatMessageOut `json:"message"`
	Logprobs     any            `json:"logprobs"`
	FinishReason string         `json:"finish_reason"`
	StopReason   any            `json:"stop_reason"`
}

type textChoice struct {
	Index        int    `json:"index"`
	Text         string `json:"text"`
	Logprobs     any    `json:"logprobs"`
	FinishReason string `json:"finish_reason"`
	StopReason   any    `json:"stop_reason"`
}

// completion is a non-streaming response body.
type completion struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices any    `json:"choices"`
	Usage   usage  `json:"usage"`
}

// apiError is vLLM's ErrorResponse body.
type apiError struct {
	Error errorInfo `json:"error"`
}

type errorInfo struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   any    `json:"param"`
	Code    int    `json:"code"`
}

type modelCard struct {
	ID          string       `json:"id"`
	Object      string       `json:"object"`
	Created     int64        `json:"created"`
	OwnedBy     string       `json:"owned_by"`
	Root        string       `json:"root"`
	Parent      any          `json:"parent"`
	MaxModelLen int          `json:"max_model_len"`
	Permission  []permission `json:"permission"`
}

type permission struct {
	ID                 string `json:"id"`
	Object             string `json:"object"`
	Created            int64  `json:"created"`
	AllowCreateEngine  bool   `json:"allow_create_engine"`
	AllowSampling      bool   `json:"allow_sampling"`
	AllowLogprobs      bool   `json:"allow_logprobs"`
	AllowSearchIndices bool   `json:"allow_search_indices"`
	AllowView          bool   `json:"allow_view"`
	AllowFineTuning    bool   `json:"allow_fine_tuning"`
	Organization       string `json:"organization"`
	Group              any    `json:"group"`
	IsBlocking         bool   `json:"is_blocking"`
}

type modelList struct {
	Object string      `json:"object"`
	Data   []modelCard `json:"data"`
}
