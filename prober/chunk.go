package prober

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// chunk is the part of an OpenAI-compatible streaming chunk we read, for
// both chat.completion.chunk and text_completion objects.
type chunk struct {
	Choices []struct {
		Text  *string `json:"text"`
		Delta struct {
			Content          *string         `json:"content"`
			ReasoningContent *string         `json:"reasoning_content"`
			Reasoning        *string         `json:"reasoning"`
			ToolCalls        json.RawMessage `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// vLLM spells it prompt_tokens_details; an older vLLM-compatible
	// server sent prompt_tokens_detail. Accept both.
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	PromptTokensDetail *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_detail"`
}

func (u *usage) cachedTokens() int {
	switch {
	case u.PromptTokensDetails != nil:
		return u.PromptTokensDetails.CachedTokens
	case u.PromptTokensDetail != nil:
		return u.PromptTokensDetail.CachedTokens
	}
	return 0
}

// parsed is what one chunk contributes to the measurement.
type parsed struct {
	content   string // answer text (delta.content or completion text)
	generated bool   // the chunk carries generated output (TTFT/ITL point)
	finish    string
	usage     *usage
}

func parseChunk(data []byte) (parsed, error) {
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return parsed{}, fail(ReasonMalformedChunk, fmt.Errorf("invalid JSON in stream: %v", err))
	}
	if len(c.Error) > 0 && !bytes.Equal(c.Error, []byte("null")) {
		return parsed{}, fail(ReasonStreamError, fmt.Errorf("error in stream: %s", errorMessage(c.Error)))
	}
	p := parsed{usage: c.Usage}
	for _, ch := range c.Choices {
		// Reasoning counts as generated (it is what the user waits for) but
		// is not part of the answer that validators check.
		for _, s := range []*string{ch.Text, ch.Delta.Content} {
			if s != nil && *s != "" {
				p.generated = true
				p.content += *s
			}
		}
		for _, s := range []*string{ch.Delta.ReasoningContent, ch.Delta.Reasoning} {
			if s != nil && *s != "" {
				p.generated = true
			}
		}
		if tc := bytes.TrimSpace(ch.Delta.ToolCalls); len(tc) > 0 && !bytes.Equal(tc, []byte("null")) && !bytes.Equal(tc, []byte("[]")) {
			p.generated = true
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			p.finish = *ch.FinishReason
		}
	}
	return p, nil
}

// errorMessage extracts a short message from an OpenAI-style error value
// (an object with "message", or a bare string).
func errorMessage(raw json.RawMessage) string {
	var obj struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		if obj.Type != "" {
			return truncate(obj.Type+": "+obj.Message, 256)
		}
		return truncate(obj.Message, 256)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return truncate(s, 256)
	}
	return truncate(string(raw), 256)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
