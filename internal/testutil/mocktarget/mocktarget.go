// Package mocktarget starts the built-in mock vLLM server on loopback as a
// configured target, for the tests of bench's packages.
package mocktarget

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prober"
	"github.com/llm-prober/llm-prober/prompt"
	commoncfg "github.com/prometheus/common/config"
)

// FixedMock returns mock options with fixed latencies (no jitter) and no
// Prefix-cache hits.
func FixedMock() mockvllm.Options {
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: 20 * time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: 5 * time.Millisecond}
	o.BatchSlowdown = 0
	o.PrefixCacheHitRate = 0
	return o
}

// Tokenizer is the /tokenize client bench builds for an auto target.
func Tokenizer(tg *config.Target, client *http.Client) *prompt.Tokenizer {
	return &prompt.Tokenizer{Client: client, BaseURL: tg.URL, Redacted: tg.RedactedURL(), Model: tg.Model,
		Dialects: prompt.Dialects(backend.Auto), Timeout: time.Minute}
}

// Start serves a mock on loopback and returns a target and the
// product's probe client for it.
func Start(t *testing.T, o mockvllm.Options) (*mockvllm.Server, *config.Target, *http.Client) {
	t.Helper()
	s := mockvllm.New(o)
	ts := httptest.NewServer(s)
	hc := commoncfg.DefaultHTTPClientConfig
	hc.FollowRedirects = false
	tg := &config.Target{Name: "mock", URL: ts.URL, Model: s.Options().Model, HTTPClientConfig: hc,
		ServerMetrics: config.ServerMetrics{Enabled: true, Path: "/metrics"}}
	client, err := prober.NewClient(tg, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		client.CloseIdleConnections()
		ts.Close()
	})
	return s, tg, client
}

// URL serves a default mock with 5 ms TTFT and 2 ± 1 ms gaps on loopback
// and returns its base URL.
func URL(t testing.TB) string {
	t.Helper()
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 5 * time.Millisecond}, mockvllm.Dist{Mean: 2 * time.Millisecond, Jitter: time.Millisecond}
	return Serve(t, o, nil)
}

// Serve serves a mock with options o on loopback, chat (when not nil)
// answering its chat completions, and returns its base URL.
func Serve(t testing.TB, o mockvllm.Options, chat http.HandlerFunc) string {
	t.Helper()
	s := mockvllm.New(o)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if chat != nil && r.URL.Path == "/v1/chat/completions" {
			chat(w, r)
			return
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); ts.Close() })
	return ts.URL
}

// Hang answers a chat completion with a stream's headers and nothing
// more until the client goes, counting the requests in arrived: a server
// hung mid-request.
func Hang(arrived *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// Saturating serves a mock that runs one request at a time (TTFT 40 ms, 5
// ms a token) and returns its base URL: a sweep over it bends. With 4
// output tokens it serves ~18 req/s: at 10 req/s a request waits at most
// for one other, while of a burst of 15 at 500 req/s the k-th waits
// ~53k ms, and the last four pass a 600 ms TTFT (a stall on a loaded
// machine only adds to that).
func Saturating(t testing.TB) string {
	t.Helper()
	o := FixedMock()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 40 * time.Millisecond}, mockvllm.Dist{Mean: 5 * time.Millisecond}
	o.MaxRunning, o.KVBlocks = 1, 0
	return Serve(t, o, nil)
}
