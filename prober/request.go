package prober

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/llm-prober/llm-prober/config"
)

// endpointPath is the OpenAI-compatible path for a module's API.
func endpointPath(api config.API) string {
	if api == config.APICompletions {
		return "/v1/completions"
	}
	return "/v1/chat/completions"
}

// requestBodyFor builds the JSON body of a streaming request, with the
// messages or prompt of in (a sized or cold prompt, cache.go) and its
// cache_salt if in is not nil.
func requestBodyFor(t *config.Target, m *config.Module, in *input) ([]byte, error) {
	body := map[string]any{}
	for k, v := range m.ExtraBody {
		body[k] = v
	}
	body["model"] = t.Model
	body["stream"] = true
	prompt, messages := m.Prompt, m.Messages
	if in != nil {
		prompt, messages = in.prompt, in.messages
		if in.salt != "" {
			body["cache_salt"] = in.salt
		}
	}
	if m.API == config.APICompletions {
		body["prompt"] = prompt
	} else {
		msgs := make([]map[string]string, len(messages))
		for i, msg := range messages {
			msgs[i] = map[string]string{"role": msg.Role, "content": msg.Content}
		}
		body["messages"] = msgs
	}
	if m.MaxTokens > 0 {
		body["max_tokens"] = m.MaxTokens
	}
	if m.Temperature != nil {
		body["temperature"] = *m.Temperature
	}
	if m.IgnoreEOS {
		body["ignore_eos"] = true
	}
	if m.MinTokens > 0 {
		body["min_tokens"] = m.MinTokens
	}
	so := map[string]bool{}
	if boolOr(m.StreamOptions.IncludeUsage, true) {
		so["include_usage"] = true
		// continuous_usage_stats only means something with include_usage.
		if boolOr(m.StreamOptions.ContinuousUsageStats, true) {
			so["continuous_usage_stats"] = true
		}
	}
	if len(so) > 0 {
		body["stream_options"] = so
	}
	return json.Marshal(body)
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// newRequest builds the HTTP request for one probe.
func newRequest(ctx context.Context, t *config.Target, m *config.Module, id, userAgent string) (*http.Request, error) {
	body, err := requestBodyFor(t, m, inputFrom(ctx))
	if err != nil {
		return nil, err
	}
	url := strings.TrimSuffix(t.URL, "/") + endpointPath(m.API)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	// vLLM and most gateways propagate X-Request-Id into their logs, which
	// ties a slow probe to the server's own view of it.
	req.Header.Set("X-Request-Id", id)
	if userAgent != "" {
		req.Header.Set("User-Agent", userAgent)
	}
	return req, nil
}
