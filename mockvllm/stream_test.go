package mockvllm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestChatStreamShape(t *testing.T) {
	h := start(t, fastOptions())
	resp := h.post(context.Background(), "/v1/chat/completions",
		chatBody(5, map[string]any{"stream_options": map[string]any{"include_usage": true}}),
		"X-Request-Id", "abc123")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d content-type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if got := resp.Header.Get("X-Request-Id"); got != "abc123" {
		t.Errorf("X-Request-Id echo = %q", got)
	}
	st := readSSE(resp.Body)
	ev := st.events
	if len(ev) != 1+5+1+1+1 || ev[len(ev)-1] != "[DONE]" {
		t.Fatalf("events: %q", ev)
	}
	role := decodeChunk(t, ev[0])
	if role.ID != "chatcmpl-abc123" || role.Object != "chat.completion.chunk" || role.Model != "mock-model" {
		t.Errorf("role chunk header: %+v", role)
	}
	d := role.Choices[0].Delta
	if d == nil || d.Role == nil || *d.Role != "assistant" || d.Content == nil || *d.Content != "" || role.Usage != nil {
		t.Errorf("role chunk: %s", ev[0])
	}
	var text string
	for _, e := range ev[1:6] {
		c := decodeChunk(t, e)
		if c.Choices[0].FinishReason != nil || c.Usage != nil || !strings.Contains(e, `"usage":null`) {
			t.Errorf("content chunk: %s", e)
		}
		if len(strings.Fields(c.text())) != 1 {
			t.Errorf("content chunk should carry one word: %s", e)
		}
		text += c.text()
	}
	if n := len(strings.Fields(text)); n != 5 {
		t.Errorf("tokens = %d, want 5 (%q)", n, text)
	}
	fin := decodeChunk(t, ev[6])
	if fr := fin.Choices[0].FinishReason; fr == nil || *fr != "length" || !strings.Contains(ev[6], `"delta":{}`) {
		t.Errorf("finish chunk: %s", ev[6])
	}
	u := decodeChunk(t, ev[7])
	if len(u.Choices) != 0 || !strings.Contains(ev[7], `"choices":[]`) || u.Usage == nil ||
		u.Usage.CompletionTokens != 5 || u.Usage.PromptTokens != 5 || u.Usage.TotalTokens != 10 {
		t.Errorf("usage chunk: %s", ev[7])
	}
}

func TestContinuousUsageCumulative(t *testing.T) {
	o := fastOptions()
	o.TokensPerChunk = 3
	h := start(t, o)
	resp := h.post(context.Background(), "/v1/chat/completions", chatBody(10, map[string]any{
		"stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true}}))
	defer resp.Body.Close()
	ev := readSSE(resp.Body).events
	var got []int
	prev := 0
	for _, e := range ev[:len(ev)-1] {
		c := decodeChunk(t, e)
		if c.Usage == nil {
			t.Fatalf("chunk without usage: %s", e)
		}
		got = append(got, c.Usage.CompletionTokens)
		if n := len(strings.Fields(c.text())); n != c.Usage.CompletionTokens-prev {
			t.Errorf("chunk words %d != usage delta %d: %s", n, c.Usage.CompletionTokens-prev, e)
		}
		prev = c.Usage.CompletionTokens
	}
	// role 0, prefill step 1 token, then 3 per step, finish and usage repeat the total.
	want := []int{0, 1, 4, 7, 10, 10, 10}
	if len(got) != len(want) {
		t.Fatalf("cumulative usage %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cumulative usage %v, want %v", got, want)
		}
	}
}

func TestCompletionsStream(t *testing.T) {
	h := start(t, fastOptions())
	resp := h.post(context.Background(), "/v1/completions", map[string]any{
		"model": "mock-model", "prompt": "once upon a time", "max_tokens": 4, "stream": true,
		"ignore_eos": true, "stream_options": map[string]any{"include_usage": true}}, "X-Request-Id", "c1")
	defer resp.Body.Close()
	ev := readSSE(resp.Body).events
	if len(ev) != 4+1+1+1 {
		t.Fatalf("events %q", ev)
	}
	for _, e := range ev[:4] {
		c := decodeChunk(t, e)
		if c.ID != "cmpl-c1" || c.Object != "text_completion" || len(strings.Fields(c.text())) != 1 {
			t.Errorf("text chunk: %s", e)
		}
	}
	fin := decodeChunk(t, ev[4])
	if fin.text() != "" || fin.Choices[0].FinishReason == nil || *fin.Choices[0].FinishReason != "length" {
		t.Errorf("finish chunk: %s", ev[4])
	}
	if u := decodeChunk(t, ev[5]).Usage; u == nil || u.PromptTokens != 4 || u.CompletionTokens != 4 {
		t.Errorf("usage chunk: %s", ev[5])
	}
}

func TestFinishOnLastChunk(t *testing.T) {
	o := fastOptions()
	o.FinishOnLastChunk = true
	h := start(t, o)
	resp := h.post(context.Background(), "/v1/chat/completions", chatBody(3, nil))
	defer resp.Body.Close()
	ev := readSSE(resp.Body).events
	if len(ev) != 1+3+1 {
		t.Fatalf("events %q", ev)
	}
	last := decodeChunk(t, ev[3])
	if last.text() == "" || last.Choices[0].FinishReason == nil || *last.Choices[0].FinishReason != "length" {
		t.Errorf("last content chunk: %s", ev[3])
	}
}

func TestEOSAndMinTokens(t *testing.T) {
	o := fastOptions()
	o.EOSAfter = 3
	h := start(t, o)
	cases := []struct {
		extra  map[string]any
		tokens int
		reason string
	}{
		{map[string]any{"ignore_eos": false}, 3, "stop"},
		{map[string]any{"ignore_eos": true}, 8, "length"},
		{map[string]any{"ignore_eos": false, "min_tokens": 5}, 5, "stop"},
		{map[string]any{"ignore_eos": false, "max_tokens": 2}, 2, "length"},
	}
	for _, c := range cases {
		resp := h.post(context.Background(), "/v1/chat/completions", chatBody(8, c.extra))
		ev := readSSE(resp.Body).events
		resp.Body.Close()
		var text, reason string
		for _, e := range ev[:len(ev)-1] {
			ch := decodeChunk(t, e)
			text += ch.text()
			if len(ch.Choices) > 0 && ch.Choices[0].FinishReason != nil {
				reason = *ch.Choices[0].FinishReason
			}
		}
		if n := len(strings.Fields(text)); n != c.tokens || reason != c.reason {
			t.Errorf("%v: %d tokens %q, want %d %q", c.extra, n, reason, c.tokens, c.reason)
		}
	}
}

func TestNonStreaming(t *testing.T) {
	h := start(t, fastOptions())
	for _, path := range []string{"/v1/chat/completions", "/v1/completions"} {
		body := chatBody(6, map[string]any{"stream": false, "prompt": "a b c"})
		resp := h.post(context.Background(), path, body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got struct {
			Object  string `json:"object"`
			Choices []struct {
				Message      *struct{ Role, Content string } `json:"message"`
				Text         string                          `json:"text"`
				FinishReason string                          `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(b, &got); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v %s", path, resp.StatusCode, err, b)
		}
		text := got.Choices[0].Text
		if m := got.Choices[0].Message; m != nil {
			text = m.Content
		}
		if len(strings.Fields(text)) != 6 || got.Usage.CompletionTokens != 6 || got.Choices[0].FinishReason != "length" {
			t.Errorf("%s: %s", path, b)
		}
	}
}

func TestBadRequests(t *testing.T) {
	h := start(t, fastOptions())
	cases := []struct {
		path   string
		body   map[string]any
		status int
		typ    string
	}{
		{"/v1/chat/completions", chatBody(5, map[string]any{"model": "other"}), 404, "NotFoundError"},
		{"/v1/chat/completions", chatBody(0, nil), 400, "BadRequestError"},
		{"/v1/chat/completions", chatBody(40000, nil), 400, "BadRequestError"},
		{"/v1/completions", map[string]any{"model": "mock-model"}, 400, "BadRequestError"},
		{"/v1/chat/completions", chatBody(5, map[string]any{"stream": false,
			"stream_options": map[string]any{"include_usage": true}}), 400, "BadRequestError"},
	}
	for _, c := range cases {
		resp := h.post(context.Background(), c.path, c.body)
		var e apiError
		err := json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if err != nil || resp.StatusCode != c.status || e.Error.Type != c.typ || e.Error.Code != c.status || e.Error.Message == "" {
			t.Errorf("%v: status %d err %v body %+v", c.body, resp.StatusCode, err, e)
		}
	}
}

func TestInfoEndpoints(t *testing.T) {
	h := start(t, fastOptions())
	resp, b := h.get("/v1/models")
	var ml modelList
	if err := json.Unmarshal(b, &ml); err != nil || resp.StatusCode != 200 || len(ml.Data) != 1 ||
		ml.Data[0].ID != "mock-model" || ml.Data[0].OwnedBy != "vllm" || ml.Data[0].MaxModelLen != 32768 {
		t.Errorf("/v1/models: %d %s", resp.StatusCode, b)
	}
	if resp, _ := h.get("/health"); resp.StatusCode != 200 {
		t.Errorf("/health %d", resp.StatusCode)
	}
	resp, b = h.get("/version")
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"version":"0.33.0"`) {
		t.Errorf("/version: %s", b)
	}
	h.s.SetEngineDead(true)
	if resp, _ := h.get("/health"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/health with dead engine: %d", resp.StatusCode)
	}
	r := h.post(context.Background(), "/v1/chat/completions", chatBody(3, nil))
	r.Body.Close()
	if r.StatusCode != 500 {
		t.Errorf("generation with dead engine: %d", r.StatusCode)
	}
	h.s.SetEngineDead(false)
	if resp, _ := h.get("/health"); resp.StatusCode != 200 {
		t.Errorf("/health after revive %d", resp.StatusCode)
	}
}
