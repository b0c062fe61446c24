package mockvllm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// stream posts a streaming chat request with a fault header and reads it all.
func (h *harness) streamFault(ctx context.Context, fault string, maxTokens int) (*http.Response, sse) {
	h.t.Helper()
	resp := h.post(ctx, "/v1/chat/completions",
		chatBody(maxTokens, map[string]any{"stream_options": map[string]any{"include_usage": true}}),
		FaultHeader, fault, "X-Request-Id", "f-"+fault)
	defer resp.Body.Close()
	return resp, readSSE(resp.Body)
}

func countContent(t *testing.T, events []string) int {
	n := 0
	for _, e := range events {
		var c wireChunk
		if json.Unmarshal([]byte(e), &c) == nil && c.text() != "" {
			n++
		}
	}
	return n
}

func TestPreStreamFaults(t *testing.T) {
	h := start(t, fastOptions())
	cases := []struct {
		fault  string
		status int
		typ    string
	}{
		{"rate_limit", 429, "RateLimitError"},
		{"error_500", 500, "InternalServerError"},
		{"error_503", 503, "ServiceUnavailableError"},
		{"not_sse", 200, "InternalServerError"},
		{"no_such_fault", 400, "BadRequestError"},
	}
	for _, c := range cases {
		resp := h.post(context.Background(), "/v1/chat/completions", chatBody(5, nil), FaultHeader, c.fault)
		var e apiError
		err := json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if err != nil || resp.StatusCode != c.status || e.Error.Type != c.typ {
			t.Errorf("%s: status %d err %v body %+v", c.fault, resp.StatusCode, err, e)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: content-type %q", c.fault, ct)
		}
		if c.fault == "rate_limit" && resp.Header.Get("Retry-After") != "1" {
			t.Errorf("rate_limit: Retry-After %q", resp.Header.Get("Retry-After"))
		}
	}
	if st := h.s.Stats(); st.Running+st.Waiting != 0 {
		t.Errorf("pre-stream faults reached the engine: %+v", st)
	}
}

func TestStreamError(t *testing.T) {
	h := start(t, fastOptions())
	resp, st := h.streamFault(context.Background(), "stream_error", 10)
	ev := st.events
	if resp.StatusCode != 200 || len(ev) < 2 || ev[len(ev)-1] != "[DONE]" {
		t.Fatalf("status %d events %q", resp.StatusCode, ev)
	}
	if n := countContent(t, ev); n != 2 {
		t.Errorf("content chunks before the error = %d, want 2", n)
	}
	e := decodeChunk(t, ev[len(ev)-2])
	if e.Error == nil || e.Error.Code != 500 || e.Error.Type != "InternalServerError" {
		t.Errorf("error event: %s", ev[len(ev)-2])
	}
	if v := value(h.metrics(), "vllm:request_success_total", "finished_reason", "error"); v != 1 {
		t.Errorf("request_success_total{error} = %v", v)
	}
}

func TestDisconnect(t *testing.T) {
	h := start(t, fastOptions())
	resp, st := h.streamFault(context.Background(), "disconnect", 10)
	if resp.StatusCode != 200 || st.err == nil {
		t.Fatalf("want a broken body, got status %d err %v", resp.StatusCode, st.err)
	}
	for _, e := range st.events {
		if e == "[DONE]" {
			t.Error("[DONE] after disconnect")
		}
	}
	if n := countContent(t, st.events); n != 2 {
		t.Errorf("content chunks before the cut = %d", n)
	}
	if tr, ok := h.s.Emissions("f-disconnect"); !ok || tr.FinishReason != "abort" {
		t.Errorf("trace: %+v", tr)
	}
}

func TestStallAndStallMid(t *testing.T) {
	for _, fault := range []string{"stall", "stall_mid"} {
		t.Run(fault, func(t *testing.T) {
			h := start(t, fastOptions())
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			resp, st := h.streamFault(ctx, fault, 10)
			if resp.StatusCode != 200 || st.err == nil || time.Since(start) < 250*time.Millisecond {
				t.Fatalf("status %d err %v after %v", resp.StatusCode, st.err, time.Since(start))
			}
			want := map[string]int{"stall": 0, "stall_mid": 2}[fault]
			if n := countContent(t, st.events); n != want {
				t.Errorf("content chunks = %d, want %d", n, want)
			}
			eventually(t, 2*time.Second, "trace after client left", func() bool {
				tr, ok := h.s.Emissions("f-" + fault)
				return ok && tr.FinishReason == "abort"
			})
			if s := h.s.Stats(); s.Running != 0 || s.UsedBlocks != 0 {
				t.Errorf("engine not released: %+v", s)
			}
		})
	}
}

func TestStallTimeoutCap(t *testing.T) {
	o := fastOptions()
	o.StallTimeout = 50 * time.Millisecond
	h := start(t, o)
	_, st := h.streamFault(context.Background(), "stall", 5)
	if len(st.events) != 0 {
		t.Errorf("events after stall: %q", st.events)
	}
}

func TestMalformedAndEmpty(t *testing.T) {
	h := start(t, fastOptions())
	_, st := h.streamFault(context.Background(), "malformed", 5)
	bad := 0
	for _, e := range st.events {
		if e != "[DONE]" && !json.Valid([]byte(e)) {
			bad++
		}
	}
	if bad != 1 || st.events[len(st.events)-1] != "[DONE]" || countContent(t, st.events) != 5 {
		t.Errorf("malformed stream: %q", st.events)
	}

	_, st = h.streamFault(context.Background(), "empty", 5)
	ev := st.events
	if len(ev) != 4 || countContent(t, ev) != 0 || ev[3] != "[DONE]" {
		t.Fatalf("empty stream: %q", ev)
	}
	if fr := decodeChunk(t, ev[1]).Choices[0].FinishReason; fr == nil || *fr != "stop" {
		t.Errorf("empty finish: %s", ev[1])
	}
	if u := decodeChunk(t, ev[2]).Usage; u == nil || u.CompletionTokens != 0 {
		t.Errorf("empty usage: %s", ev[2])
	}
}

func TestNonStreamingFaults(t *testing.T) {
	h := start(t, fastOptions())
	post := func(fault string) (*http.Response, []byte, error) {
		resp := h.post(context.Background(), "/v1/completions",
			map[string]any{"prompt": "hi", "max_tokens": 4}, FaultHeader, fault)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}
	if resp, _, _ := post("stream_error"); resp.StatusCode != 500 {
		t.Errorf("stream_error non-streaming: %d", resp.StatusCode)
	}
	if resp, b, _ := post("malformed"); resp.StatusCode != 200 || json.Valid(b) {
		t.Errorf("malformed non-streaming: %d %s", resp.StatusCode, b)
	}
	if _, b, _ := post("empty"); !strings.Contains(string(b), `"completion_tokens":0`) {
		t.Errorf("empty non-streaming: %s", b)
	}
	req, _ := http.NewRequest(http.MethodPost, h.ts.URL+"/v1/completions", strings.NewReader(`{"prompt":"hi","max_tokens":3}`))
	req.Header.Set(FaultHeader, "disconnect")
	if resp, err := h.client.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("disconnect non-streaming: got a response %d", resp.StatusCode)
	}
}

func TestFaultRates(t *testing.T) {
	o := fastOptions()
	o.Faults = FaultRates{FaultError503: 1}
	h := start(t, o)
	for range 3 {
		resp := h.post(context.Background(), "/v1/chat/completions", chatBody(2, nil))
		resp.Body.Close()
		if resp.StatusCode != 503 {
			t.Errorf("status %d, want 503", resp.StatusCode)
		}
	}
	// The header overrides the configured rates.
	resp := h.post(context.Background(), "/v1/chat/completions", chatBody(2, nil), FaultHeader, "none")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("X-Mock-Fault: none gave %d", resp.StatusCode)
	}
	if got := (FaultRates{FaultStall: 0.5, FaultEmpty: 0.25}).draw(0.6); got != FaultEmpty {
		t.Errorf("draw(0.6) = %q", got)
	}
}
