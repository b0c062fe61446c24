package prober

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// event is one raw SSE event a test server writes after a delay.
type event struct {
	delay time.Duration
	raw   string // written verbatim (include the trailing blank line)
}

// sseServer serves the events on every POST, flushing each one.
func sseServer(t *testing.T, contentType string, events []event) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(eventsHandler(contentType, events))
	t.Cleanup(srv.Close)
	return srv
}

func eventsHandler(contentType string, events []event) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // lets net/http notice a client that left
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for _, e := range events {
			select {
			case <-time.After(e.delay):
			case <-r.Context().Done():
				return
			}
			if _, err := w.Write([]byte(e.raw)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
}

// fixtureEvents splits an SSE capture into its events.
func fixtureEvents(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/sse/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range bytes.Split(bytes.TrimSpace(b), []byte("\n\n")) {
		out = append(out, string(e)+"\n\n")
	}
	return out
}

func testTarget(url string) *config.Target {
	return &config.Target{Name: "t1", URL: url, Model: "m", Timeout: modelDuration(5 * time.Second)}
}

func chatModule() *config.Module {
	return &config.Module{Name: "chat", API: config.APIChat, MaxTokens: 16,
		Messages: []config.Message{{Role: "user", Content: "hi"}}}
}

func runProbe(t *testing.T, url string, m *config.Module, timeout time.Duration) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	target := testTarget(url)
	client, err := NewClient(target, time.Minute) // the product's client
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	return Run(ctx, client, target, m, "probe-1", "test")
}
