package prober

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/mockvllm"
)

func llamaCPP(t *testing.T, hangTokenize bool) *testutil.LlamaCPP {
	o := mockvllm.DefaultOptions()
	o.Model = "m"
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 2 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	return testutil.NewLlamaCPP(t, o, 4096, hangTokenize)
}

// A llama-server target with backend auto: its empty token list for
// vLLM's /tokenize body is no answer, llama.cpp's body is tried next, and
// the prompt is exact from the first probe.
func TestPromptTokensLlamaCPPAuto(t *testing.T) {
	l := llamaCPP(t, false)
	m := prefillModule("llama-auto", config.APICompletions, config.CacheWarm, 200)
	for i, r := range probeN(t, l.URL, backend.Auto, m, 2) {
		if !r.Prefill.Tokenized || r.PromptTokens != 200 {
			t.Errorf("probe %d: %d prompt tokens (tokenized %v), want exactly 200 via /tokenize", i, r.PromptTokens, r.Prefill.Tokenized)
		}
	}
}

// A /tokenize that never answers fails the probe as timeout_tokenize
// after half its timeout, with that duration, and sends no request; after
// tokenizeAttempts such probes the prompt is sized from usage alone.
func TestPromptTokensHangingTokenize(t *testing.T) {
	l := llamaCPP(t, true)
	target := testTarget(l.URL)
	target.Backend = backend.LlamaCPP
	client, err := NewClient(target, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	profile := NewPromptProfile()
	m := prefillModule("hang", config.APICompletions, config.CacheWarm, 64)
	const timeout = 2 * time.Second
	for i := range tokenizeAttempts + 1 {
		ctx, cancel := context.WithTimeout(t.Context(), timeout)
		r := RunWithOptions(ctx, client, target, m, NewProbeID(), "test", RunOptions{Profile: profile})
		took := time.Since(r.Start)
		cancel()
		if i == tokenizeAttempts {
			if !r.Success() || r.Prefill.Tokenized || r.PromptTokens != 64 {
				t.Errorf("probe %d, after %d timed-out sizings: %s %v, %d prompt tokens, tokenized %v", i, tokenizeAttempts, r.Reason, r.Err, r.PromptTokens, r.Prefill.Tokenized)
			}
			break
		}
		if r.Reason != ReasonTimeoutTokenize || !strings.Contains(r.Err.Error(), "/tokenize: no answer in") || took < timeout/2-50*time.Millisecond {
			t.Errorf("probe %d: %s (%v) after %v; want timeout_tokenize after ~%v", i, r.Reason, r.Err, took, timeout/2)
		}
	}
	if n := l.Generations.Load(); n != 1 {
		t.Errorf("%d generation requests, want 1 (none while sizing timed out)", n)
	}
}

// A server out of reach while sizing is timeout_connect, as the request
// would have found, not a slow tokenizer.
func TestPromptTokensUnreachableWhileSizing(t *testing.T) {
	blackhole := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}}
	target := testTarget("http://127.0.0.1:9")
	target.Backend = backend.VLLM
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	m := prefillModule("unreachable", config.APICompletions, config.CacheWarm, 64)
	if r := RunWithOptions(ctx, blackhole, target, m, NewProbeID(), "test", RunOptions{}); r.Reason != ReasonTimeoutConnect {
		t.Errorf("blackholed target: %s (%v), want timeout_connect", r.Reason, r.Err)
	}
}
