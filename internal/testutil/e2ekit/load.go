package e2ekit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// LoadBody is a load generator's request: a streamed chat completion for
// mock-model of a prompt of words words, asking for maxTokens tokens
// whatever the model would rather do.
func LoadBody(words, maxTokens int) []byte {
	body, err := json.Marshal(map[string]any{
		"model":      "mock-model",
		"messages":   []map[string]string{{"role": "user", "content": strings.TrimSpace(strings.Repeat("load ", words))}},
		"max_tokens": maxTokens,
		"ignore_eos": true,
		"stream":     true,
	})
	if err != nil {
		panic(err) // a map of strings and numbers always marshals
	}
	return body
}

// Stream is one load client: it posts body to base's chat completions
// endpoint again and again until ctx is done, reading each streamed
// answer to its end. After a request that got no answer it waits backoff;
// answered, if not nil, is called with the status of every answer.
func Stream(ctx context.Context, client *http.Client, base string, body []byte, backoff time.Duration, answered func(status int)) {
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			time.Sleep(backoff)
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
		resp.Body.Close()
		if answered != nil {
			answered(resp.StatusCode)
		}
	}
}
