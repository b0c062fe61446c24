package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Tokenizer counts prompt tokens with the server's own tokenizer: vLLM's
// POST /tokenize {"model","prompt"} → {"count"}, or llama.cpp's
// POST /tokenize {"content"} → {"tokens"}.
type Tokenizer struct {
	client   *http.Client
	url      string
	model    string
	llamaCPP bool
}

// errNoTokenizer means the server has no tokenize endpoint.
var errNoTokenizer = errors.New("no tokenize endpoint")

// DetectTokenizer probes baseURL for a tokenize endpoint; it returns nil
// and no error when there is none.
func DetectTokenizer(ctx context.Context, client *http.Client, baseURL, model string) (*Tokenizer, error) {
	t := &Tokenizer{client: client, url: strings.TrimSuffix(baseURL, "/") + "/tokenize", model: model}
	if _, err := t.Count(ctx, "hello world"); err == nil {
		return t, nil
	} else if !errors.Is(err, errNoTokenizer) {
		return nil, err
	}
	t.llamaCPP = true
	if _, err := t.Count(ctx, "hello world"); err != nil {
		if errors.Is(err, errNoTokenizer) {
			return nil, nil
		}
		return nil, err
	}
	return t, nil
}

// Count returns the number of tokens the server's tokenizer makes of text
// (special tokens such as BOS included, as the server counts a prompt).
func (t *Tokenizer) Count(ctx context.Context, text string) (int, error) {
	body := map[string]any{"model": t.model, "prompt": text}
	if t.llamaCPP {
		body = map[string]any{"content": text, "add_special": true}
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("tokenize: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return 0, fmt.Errorf("tokenize: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		// 404/405 where there is none; a gateway may also answer 401/403
		// for paths it does not route. Either way: calibrate from usage.
		return 0, fmt.Errorf("%w (HTTP %d)", errNoTokenizer, resp.StatusCode)
	}
	var out struct {
		Count  *int              `json:"count"`
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, errNoTokenizer
	}
	if out.Count != nil {
		return *out.Count, nil
	}
	if out.Tokens != nil {
		return len(out.Tokens), nil
	}
	return 0, errNoTokenizer
}
