package prober

import (
	"encoding/json"

	"github.com/llm-prober/llm-prober/prober/stream"
)

// extractErrorField returns the message of an OpenAI-style JSON error body
// ({"error": {...}} or {"error": "..."} or {"message": ...}), or "".
func extractErrorField(s string) string {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal([]byte(s), &body) != nil {
		return ""
	}
	if len(body.Error) > 0 && string(body.Error) != "null" {
		return stream.ErrorMessage(body.Error)
	}
	return truncate(body.Message, 256)
}

// truncate cuts s to n bytes and marks the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
