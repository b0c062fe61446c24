package prober

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// goodStream is a complete chat stream of three content chunks.
func goodStream() []string {
	return []string{
		`data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\n",
		contentEvent("one "), contentEvent("two "), contentEvent("three"),
		`data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3}}` + "\n\n",
		"data: [DONE]\n\n",
	}
}

// sseHandler writes events as a flushed event stream.
func sseHandler(events []string) http.HandlerFunc {
	return eventStream(func(w http.ResponseWriter, _ *http.Request) {
		for _, e := range events {
			if _, err := io.WriteString(w, e); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
}

// stillResponsive checks the client (and the prober) can probe a healthy
// server right after a fault.
func stillResponsive(t *testing.T, c *http.Client) {
	t.Helper()
	url := handlerServer(t, sseHandler(goodStream()))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if r := Run(ctx, c, testTarget(url), chatModule(), "after", "test"); !r.Success() {
		t.Fatalf("healthy probe after the fault failed: %s %v", r.Reason, r.Err)
	}
}

// waitDone blocks a handler until the client goes away or the test ends.
func waitDone(r *http.Request) {
	// net/http notices a client that left only once the body is read.
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(time.Minute):
		panic(fmt.Sprintf("handler for %s was never cancelled", r.URL))
	}
}

// eventStream is a handler that reads the request, then answers
// text/event-stream with what write writes (headers it sets before its
// first write are sent too).
func eventStream(write http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		write(w, r)
	}
}
