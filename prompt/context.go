package prompt

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxInfoBody bounds a /props or /v1/models answer (llama.cpp's /props
// carries the chat template; a server with many LoRA adapters lists
// each).
const maxInfoBody = 4 << 20

// ContextSize is how many tokens (prompt and output together) one
// request may hold on the server, and where that was read: llama.cpp's
// GET /props default_generation_settings.n_ctx (per slot: -c divided by
// -np), vLLM's and SGLang's GET /v1/models max_model_len, or the last
// vLLM /tokenize answer. 0 when the server says nothing (or not within
// the caller's deadline; each call is bounded by t.Timeout as well).
func (t *Tokenizer) ContextSize(ctx context.Context) (int, string) {
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if t.getJSON(ctx, "/props", &props) && props.Settings.NCtx > 0 {
		return props.Settings.NCtx, "llama.cpp /props n_ctx per slot"
	}
	var models struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if t.getJSON(ctx, "/v1/models", &models) {
		for _, m := range models.Data {
			if m.MaxModelLen > 0 && (m.ID == t.Model || len(models.Data) == 1) {
				return m.MaxModelLen, fmt.Sprintf("/v1/models max_model_len of %s", m.ID)
			}
		}
	}
	if n := t.MaxModelLen(); n > 0 {
		return n, "/tokenize max_model_len"
	}
	return 0, ""
}

// getJSON decodes GET path into v; false on any failure.
func (t *Tokenizer) getJSON(ctx context.Context, path string, v any) bool {
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(t.BaseURL, "/")+path, nil)
	if err != nil {
		return false
	}
	if t.UserAgent != "" {
		req.Header.Set("User-Agent", t.UserAgent)
	}
	resp, err := t.Client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	return json.NewDecoder(io.LimitReader(resp.Body, maxInfoBody)).Decode(v) == nil
}
