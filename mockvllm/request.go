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
	// CacheSalt isolates the request's prefix-cache blocks (vLLM >= 0.9).
	CacheSalt string `json:"cache_salt"`
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
		return nil, errors.New("Stream options can only be defined when `stream=True`.") //nolint:revive,staticcheck // vLLM's own message, verbatim
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

// tokens is the mock's tokenizer: every whitespace-separated word of the
// message contents and the prompt, in order, is one token, or with
// charsPerToken > 0 ceil(len(word)/charsPerToken) tokens of that many
// bytes each; a token id (a number) is one token. There is no chat
// template, so /tokenize, usage.prompt_tokens and the prefix cache all
// count exactly these.
func (g *genRequest) tokens(charsPerToken int) []string {
	var out []string
	for _, m := range g.Messages {
		var msg struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &msg) == nil {
			out = appendTokens(out, msg.Content, charsPerToken)
		}
	}
	return appendTokens(out, g.Prompt, charsPerToken)
}

// appendTokens handles a string, a number (token id), a content part
// {"text":...} or arrays of any of those.
func appendTokens(out []string, raw json.RawMessage, cpt int) []string {
	if len(raw) == 0 {
		return out
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return appendWords(out, s, cpt)
	}
	var num json.Number
	if json.Unmarshal(raw, &num) == nil {
		return append(out, "#"+num.String())
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		for _, a := range arr {
			out = appendTokens(out, a, cpt)
		}
		return out
	}
	var part struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &part) == nil {
		return appendWords(out, part.Text, cpt)
	}
	return out
}

func appendWords(out []string, s string, cpt int) []string {
	for _, w := range strings.Fields(s) {
		for cpt > 0 && len(w) > cpt {
			out = append(out, w[:cpt])
			w = w[cpt:]
		}
		out = append(out, w)
	}
	return out
}
