package mockvllm

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// tokenizeRequest accepts vLLM's /tokenize body (prompt or messages) and
// llama.cpp's (content).
type tokenizeRequest struct {
	Model    string            `json:"model"`
	Prompt   json.RawMessage   `json:"prompt"`
	Messages []json.RawMessage `json:"messages"`
	Content  json.RawMessage   `json:"content"`
}

// handleTokenize answers like vLLM's POST /tokenize: {"count",
// "max_model_len", "tokens"}, counting tokens the way generation does
// (one per whitespace-separated word), so a client can size prompts
// exactly.
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var req tokenizeRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{errorInfo{Message: "invalid JSON body: " + err.Error(),
			Type: "BadRequestError", Code: http.StatusBadRequest}})
		return
	}
	if req.Model != "" && req.Model != s.o.Model {
		writeJSON(w, http.StatusNotFound, apiError{errorInfo{Message: "The model `" + req.Model + "` does not exist.",
			Type: "NotFoundError", Code: http.StatusNotFound}})
		return
	}
	g := genRequest{Messages: req.Messages, Prompt: req.Prompt}
	if len(g.Prompt) == 0 {
		g.Prompt = req.Content
	}
	n := 0
	if len(g.Messages) > 0 || len(g.Prompt) > 0 {
		n = g.promptTokens()
	}
	ids := make([]int, 0, n)
	for _, f := range strings.Fields(textOf(g)) {
		ids = append(ids, tokenID(f))
	}
	for len(ids) < n { // token-id prompts
		ids = append(ids, 0)
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": n, "max_model_len": s.o.MaxModelLen, "tokens": ids[:n]})
}

// textOf concatenates the string contents of a request, for token ids.
func textOf(g genRequest) string {
	var b strings.Builder
	add := func(raw json.RawMessage) {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			b.WriteString(s)
			b.WriteByte(' ')
		}
	}
	for _, m := range g.Messages {
		var msg struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &msg) == nil {
			add(msg.Content)
		}
	}
	add(g.Prompt)
	return b.String()
}

// tokenID is a stable pseudo id for a word (FNV-1a, 17 bits).
func tokenID(word string) int {
	h := uint32(2166136261)
	for i := 0; i < len(word); i++ {
		h ^= uint32(word[i])
		h *= 16777619
	}
	return int(h & 0x1ffff)
}
