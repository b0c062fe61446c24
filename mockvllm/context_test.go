package mockvllm

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TruncateAtContext: a request past the context stops when it is full
// (finish_reason "length", fewer tokens than asked), as llama.cpp's slots
// do; without it, vLLM's 400. The chat template's tokens count.
func TestTruncateAtContext(t *testing.T) {
	for _, truncate := range []bool{false, true} {
		o := fastOptions()
		o.MaxModelLen, o.ChatTemplateTokens, o.TruncateAtContext = 20, 3, truncate
		h := start(t, o)
		// 5 words + 3 template tokens = 8; 20 asked: 12 fit.
		body := chatBody(20, map[string]any{"stream": false})
		resp := h.post(t.Context(), "/v1/chat/completions", body)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !truncate {
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("without truncation: HTTP %d, want 400", resp.StatusCode)
			}
			continue
		}
		var out struct {
			Choices []struct {
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != http.StatusOK || len(out.Choices) != 1 ||
			out.Choices[0].FinishReason != "length" || out.Usage.PromptTokens != 8 || out.Usage.CompletionTokens != 12 {
			t.Errorf("truncated: HTTP %d, %v, %s", resp.StatusCode, err, raw)
		}
	}
}
