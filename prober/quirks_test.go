package prober

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func contentEvent(s string) string {
	return fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"content":%q},"finish_reason":null}]}`+"\n\n", s)
}

const (
	roleEvent   = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
	finishEvent = `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	doneEvent   = "data: [DONE]\n\n"
)

func events(raws ...string) []event {
	out := make([]event, len(raws))
	for i, r := range raws {
		out[i] = event{raw: r}
	}
	return out
}

// Stream shapes seen in the wild, each with the outcome it must produce.
func TestStreamOutcomes(t *testing.T) {
	cases := []struct {
		name   string
		events []event
		ctype  string
		reason Reason
		chunks int
	}{
		{"complete", events(roleEvent, contentEvent("a"), contentEvent("b"), finishEvent, doneEvent), "", ReasonNone, 2},
		{"no [DONE] but finish_reason", events(roleEvent, contentEvent("a"), finishEvent), "", ReasonNone, 1},
		{"cut mid-stream", events(roleEvent, contentEvent("a")), "", ReasonStreamBroken, 0},
		{"cut mid-line", events(roleEvent, contentEvent("a"), `data: {"choices":[{"delta":{"cont`), "", ReasonStreamBroken, 0},
		{"error object in stream", events(roleEvent, contentEvent("a"),
			`data: {"error":{"message":"engine died","type":"InternalServerError","code":500}}`+"\n\n", doneEvent), "", ReasonStreamError, 0},
		{"malformed JSON", events(roleEvent, "data: {not json}\n\n", doneEvent), "", ReasonMalformedChunk, 0},
		{"no content", events(roleEvent, finishEvent, doneEvent), "", ReasonEmptyOutput, 0},
		{"null content only", events(`data: {"choices":[{"delta":{"role":"assistant","content":null}}]}`+"\n\n", finishEvent, doneEvent), "", ReasonEmptyOutput, 0},
		{"keep-alive comments and CRLF", events(": ping\r\n\r\n", strings.ReplaceAll(contentEvent("a"), "\n", "\r\n"),
			"event: message\nid: 7\n"+contentEvent("b"), ": ping\n\n", doneEvent), "", ReasonNone, 2},
		{"multi-line data", events("data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"x\"}}]}\n\n", doneEvent), "", ReasonNone, 1},
		{"reasoning counts as generated", events(`data: {"choices":[{"delta":{"reasoning_content":"hmm"}}]}`+"\n\n", contentEvent("a"), doneEvent), "", ReasonNone, 2},
		{"tool calls count as generated", events(`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f"}}]}}]}`+"\n\n", doneEvent), "", ReasonNone, 1},
		{"json content type", events(`{"error":{"message":"nope"}}`), "application/json", ReasonNotEventStream, 0},
		{"oversized line", events("data: " + strings.Repeat("x", MaxLineBytes+10) + "\n\n"), "", ReasonLimitExceeded, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ct := c.ctype
			if ct == "" {
				ct = "text/event-stream"
			}
			srv := sseServer(t, ct, c.events)
			r := runProbe(t, srv.URL, chatModule(), 5*time.Second)
			if r.Reason != c.reason {
				t.Fatalf("reason %q (%v), want %q", r.Reason, r.Err, c.reason)
			}
			if c.reason == ReasonNone && r.ContentChunks != c.chunks {
				t.Errorf("content chunks %d, want %d", r.ContentChunks, c.chunks)
			}
			if c.reason != ReasonNone && r.Err == nil {
				t.Error("failure without an error message")
			}
		})
	}
}

// ITL is one gap per content chunk, as vllm bench serve and vLLM's own
// histogram define it, even when cumulative usage shows that a chunk holds
// several tokens (speculative decoding, --stream-interval); TPOT is the
// per-token speed.
func TestMultiTokenChunkIsOneITLGap(t *testing.T) {
	ev := func(text string, tokens int) string {
		return fmt.Sprintf(`data: {"choices":[{"delta":{"content":%q}}],"usage":{"prompt_tokens":5,"completion_tokens":%d}}`+"\n\n", text, tokens)
	}
	const gap = 30 * time.Millisecond
	srv := sseServer(t, "text/event-stream", []event{
		{raw: `data: {"choices":[{"delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":5,"completion_tokens":0}}` + "\n\n"},
		{raw: ev("a", 1)},
		{delay: gap, raw: ev(" b c d", 4)},
		{delay: gap, raw: ev(" e", 5)},
		{raw: finishEvent}, {raw: doneEvent},
	})
	r := runProbe(t, srv.URL, chatModule(), 5*time.Second)
	if !r.Success() {
		t.Fatal(r.Reason, r.Err)
	}
	if r.OutputTokens != 5 || len(r.ITL) != 2 || r.ContentChunks != 3 {
		t.Fatalf("tokens %d, ITLs %d, chunks %d; want 5, 2 and 3", r.OutputTokens, len(r.ITL), r.ContentChunks)
	}
	for _, g := range r.ITL {
		if g < gap {
			t.Errorf("ITL %v shorter than the %v between chunks", g, gap)
		}
	}
	if want := (r.E2EL - r.TTFT) / 4; r.TPOT != want {
		t.Errorf("TPOT %v, want (E2EL-TTFT)/(5-1) = %v", r.TPOT, want)
	}
}

// HTTP-level failures before any stream.
func TestHTTPFailures(t *testing.T) {
	cases := []struct {
		status int
		reason Reason
	}{
		{307, ReasonRedirect}, {400, ReasonHTTP4xx}, {401, ReasonHTTP4xx}, {404, ReasonHTTP4xx},
		{429, ReasonRateLimited}, {500, ReasonHTTP5xx}, {503, ReasonHTTP5xx},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "3")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				fmt.Fprint(w, `{"error":{"message":"model x does not exist","type":"NotFoundError","code":404}}`)
			}))
			defer srv.Close()
			r := runProbe(t, srv.URL, chatModule(), 5*time.Second)
			if r.Reason != c.reason || r.HTTPStatus != c.status {
				t.Fatalf("reason %q status %d, want %q %d", r.Reason, r.HTTPStatus, c.reason, c.status)
			}
			if !strings.Contains(r.Err.Error(), "does not exist") {
				t.Errorf("error %q lacks the server's message", r.Err)
			}
		})
	}
}

func TestTransportFailures(t *testing.T) {
	// A port that was just closed refuses connections.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if r := runProbe(t, "http://"+addr, chatModule(), 5*time.Second); r.Reason != ReasonConnect {
		t.Errorf("refused: reason %q (%v), want connect", r.Reason, r.Err)
	}
	if r := runProbe(t, "http://no-such-host.invalid", chatModule(), 5*time.Second); r.Reason != ReasonDNS {
		t.Errorf("dns: reason %q (%v), want dns", r.Reason, r.Err)
	}
	// A server that stalls after the first token must end in a timeout
	// within the deadline.
	srv := sseServer(t, "text/event-stream", []event{{raw: contentEvent("a")}, {delay: time.Hour, raw: doneEvent}})
	start := time.Now()
	r := runProbe(t, srv.URL, chatModule(), 200*time.Millisecond)
	if r.Reason != ReasonTimeoutDecode {
		t.Errorf("stall: reason %q (%v), want timeout_decode", r.Reason, r.Err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("stalled probe took %v to give up", el)
	}
	// TLS to a server whose certificate is not trusted.
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	if r := runProbe(t, tlsSrv.URL, chatModule(), 5*time.Second); r.Reason != ReasonTLS {
		t.Errorf("tls: reason %q (%v), want tls", r.Reason, r.Err)
	}
}

// Usage that appears only on the last content chunk (some servers attach
// it to the finish chunk) must not be read as a multi-token chunk.
func TestUsageOnlyAtEndDoesNotSplitITL(t *testing.T) {
	srv := sseServer(t, "text/event-stream", events(
		contentEvent("a"), contentEvent("b"), contentEvent("c"),
		`data: {"choices":[{"delta":{"content":"d"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`+"\n\n",
		doneEvent))
	r := runProbe(t, srv.URL, chatModule(), 5*time.Second)
	if !r.Success() || r.OutputTokens != 4 || !r.UsageReported {
		t.Fatalf("%s %v: %d tokens, usage %v", r.Reason, r.Err, r.OutputTokens, r.UsageReported)
	}
	if len(r.ITL) != 3 {
		t.Errorf("%d ITL gaps for 4 single-token chunks, want 3", len(r.ITL))
	}
}
