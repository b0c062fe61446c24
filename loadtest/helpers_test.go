package loadtest

import (
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prober"
	"github.com/llm-prober/llm-prober/prompt"
)

// fixedMock returns mock options with fixed latencies (no jitter) and no
// prefix-cache hits.
func fixedMock() mockvllm.Options {
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: 20 * time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: 5 * time.Millisecond}
	o.BatchSlowdown = 0
	o.PrefixCacheHitRate = 0
	return o
}

// startMock serves a mock on loopback and returns a target and the
// product's probe client for it.
// mockTokenizer is the /tokenize client bench builds for an auto target.
func mockTokenizer(tg *config.Target, client *http.Client) *prompt.Tokenizer {
	return &prompt.Tokenizer{Client: client, BaseURL: tg.URL, Redacted: tg.RedactedURL(), Model: tg.Model,
		Dialects: prompt.Dialects(backend.Auto), Timeout: time.Minute}
}

func startMock(t *testing.T, o mockvllm.Options) (*mockvllm.Server, *config.Target, *http.Client) {
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

// baseOptions is an open-loop run of the synthetic workload.
func baseOptions(tg *config.Target, client *http.Client, in, out int) Options {
	return Options{Target: tg, API: config.APIChat, Client: client,
		Workload: NewSynthetic(in, out, 0, 0, 1, nil), Burstiness: 1, Seed: 1, IgnoreEOS: true,
		Timeout: time.Minute}
}

// runWorkload sends n requests of w to tg at once (an infinite rate).
func runWorkload(t *testing.T, tg *config.Target, client *http.Client, w Workload, n int) *Run {
	t.Helper()
	opts := baseOptions(tg, client, 0, 0)
	opts.Workload, opts.Rate, opts.NumPrompts = w, math.Inf(1), n
	run, err := Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// runWatched runs opts while w watches the server, then returns the
// server's report attached to the run's (no SLO).
func runWatched(t *testing.T, w *Watcher, opts Options) (ServerReport, *Report) {
	t.Helper()
	run, err := Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := w.Stop(t.Context())
	rep := Summarize(run, SLO{}, nil)
	srv.Attach(rep)
	return srv, rep
}
