package mockvllm

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
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
// (genRequest.tokens), so a client can size prompts exactly. llama.cpp's
// clients read "tokens" alone.
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	if s.o.NoTokenize {
		http.NotFound(w, r)
		return
	}
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
	toks := g.tokens(s.o.CharsPerToken)
	if len(req.Messages) > 0 {
		toks = s.withTemplate(toks) // as vLLM applies the chat template
	}
	ids := make([]int, len(toks))
	for i, t := range toks {
		ids[i] = tokenID(t)
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(ids), "max_model_len": s.o.MaxModelLen, "tokens": ids})
}

// withTemplate puts ChatTemplateTokens template tokens before a chat
// request's tokens.
func (s *Server) withTemplate(toks []string) []string {
	if s.o.ChatTemplateTokens <= 0 {
		return toks
	}
	out := make([]string, 0, s.o.ChatTemplateTokens+len(toks))
	for i := range s.o.ChatTemplateTokens {
		out = append(out, "<|template_"+strconv.Itoa(i)+"|>")
	}
	return append(out, toks...)
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
