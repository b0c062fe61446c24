package mockvllm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// genRequest is the subset of the OpenAI/vLLM request body the mock uses.
type genRequest struct {
	Model               string            `json:"model"`
	Messages            []json.RawMessage `json:"messages"`
	Prompt              json.RawMessage   `json:"prompt"`
	MaxTokens           *int              `json:"max_tokens"`
	MaxCompletionTokens *int              `json:"max_completion_tokens"`
	MinTokens           int               `json:"min_tokens"`
	IgnoreEOS           bool              `json:"ignore_eos"`
	Stream              bool              `json:"stream"`
	StreamOptions       *streamOptions    `json:"stream_options"`
}

type streamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats"`
}

// maxBody bounds request bodies; prompts beyond it are not realistic here.
const maxBody = 8 << 20

func parseRequest(body io.Reader, chat bool) (*genRequest, error) {
	var g genRequest
	if err := json.NewDecoder(io.LimitReader(body, maxBody)).Decode(&g); err != nil {
		return nil, fmt.Errorf("invalid JSON body: %v", err)
	}
	if chat && len(g.Messages) == 0 {
		return nil, errors.New("messages: field required")
	}
	if !chat && len(g.Prompt) == 0 {
		return nil, errors.New("prompt: field required")
	}
	if g.StreamOptions != nil && !g.Stream {
		return nil, errors.New("Stream options can only be defined when `stream=True`.")
	}
	if g.MinTokens < 0 {
		return nil, errors.New("min_tokens must be greater than or equal to 0")
	}
	return &g, nil
}

// maxTokens resolves max_completion_tokens / max_tokens like vLLM chat.
func (g *genRequest) maxTokens(def int) (int, error) {
	n := def
	switch {
	case g.MaxCompletionTokens != nil:
		n = *g.MaxCompletionTokens
	case g.MaxTokens != nil:
		n = *g.MaxTokens
	}
	if n < 1 {
		return 0, fmt.Errorf("max_tokens must be at least 1, got %d", n)
	}
	if g.MinTokens > n {
		return 0, fmt.Errorf("min_tokens must be less than or equal to max_tokens=%d, got %d", n, g.MinTokens)
	}
	return n, nil
}

// promptTokens approximates the tokenizer: one token per whitespace
// separated word of the text (no chat-template overhead), or one per id
// for token-id prompts; at least 1.
func (g *genRequest) promptTokens() int {
	n := 0
	for _, m := range g.Messages {
		var msg struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &msg) == nil {
			n += countTokens(msg.Content)
		}
	}
	n += countTokens(g.Prompt)
	return max(n, 1)
}

// countTokens handles a string, a number (token id), a content part
// {"text":...} or arrays of any of those.
func countTokens(raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return len(strings.Fields(s))
	}
	var num json.Number
	if json.Unmarshal(raw, &num) == nil {
		return 1
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		n := 0
		for _, a := range arr {
			n += countTokens(a)
		}
		return n
	}
	var part struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &part) == nil {
		return len(strings.Fields(part.Text))
	}
	return 0
}
