package mockvllm

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// words400 is a prompt of 400 one-token words.
var words400 = strings.TrimSpace(strings.Repeat("alpha beta gamma delta ", 100))

func cacheOptions() Options {
	o := fastOptions()
	o.TTFT = Dist{Mean: 5 * time.Millisecond}
	o.PrefixCacheBlocks = 1024
	o.PrefillPerToken = 250 * time.Microsecond // 400 tokens: 100 ms cold
	return o
}

// prefill sends one chat request and returns its trace.
func (h *harness) prefill(t *testing.T, id, content string, extra map[string]any) Trace {
	t.Helper()
	body := chatBody(2, extra)
	body["messages"] = []map[string]string{{"role": "user", "content": content}}
	resp := h.post(t.Context(), "/v1/chat/completions", body, "X-Request-Id", id)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	tr, ok := h.s.Emissions(id)
	if !ok || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d, trace %v", id, resp.StatusCode, ok)
	}
	return tr
}

func TestPrefixCacheColdWarm(t *testing.T) {
	h := start(t, cacheOptions())
	prefill := func(tr Trace) time.Duration { return tr.FirstToken.Sub(tr.Scheduled) }
	cold := h.prefill(t, "cold", words400, nil)
	warm := h.prefill(t, "warm", words400, nil)
	salted := h.prefill(t, "salted", words400, map[string]any{"cache_salt": "s1"})
	salted2 := h.prefill(t, "salted2", words400, map[string]any{"cache_salt": "s1"})
	other := h.prefill(t, "other", "zeta "+words400, nil)
	// The last token is always computed: 399 tokens → 24 full blocks of 16.
	for _, c := range []struct {
		name         string
		tr           Trace
		cached       int
		min, max     time.Duration
		promptTokens int
	}{
		{"cold", cold, 0, 105 * time.Millisecond, 2 * time.Second, 400},
		{"warm", warm, 384, 5 * time.Millisecond, 60 * time.Millisecond, 400},
		{"new salt", salted, 0, 105 * time.Millisecond, 2 * time.Second, 400},
		{"same salt", salted2, 384, 5 * time.Millisecond, 60 * time.Millisecond, 400},
		{"other first block", other, 0, 105 * time.Millisecond, 2 * time.Second, 401},
	} {
		if c.tr.CachedTokens != c.cached || c.tr.PromptTokens != c.promptTokens {
			t.Errorf("%s: %d of %d prompt tokens cached, want %d of %d", c.name, c.tr.CachedTokens, c.tr.PromptTokens, c.cached, c.promptTokens)
		}
		if d := prefill(c.tr); d < c.min || d > c.max {
			t.Errorf("%s: prefill took %v, want %v..%v", c.name, d, c.min, c.max)
		}
	}
	mf := h.metrics()
	if q, hits := value(mf, "vllm:prefix_cache_queries_total"), value(mf, "vllm:prefix_cache_hits_total"); q != 2001 || hits != 768 {
		t.Errorf("prefix cache queries %g hits %g, want 2001 and 768", q, hits)
	}
}

func TestPrefixCacheEvictsLeastRecentlyUsed(t *testing.T) {
	o := cacheOptions()
	o.PrefixCacheBlocks = 30 // one 400-token prompt's 25 blocks, not two
	h := start(t, o)
	h.prefill(t, "a1", words400, nil)
	h.prefill(t, "b1", "zeta "+words400, nil) // evicts most of a's blocks
	if tr := h.prefill(t, "a2", words400, nil); tr.CachedTokens != 0 {
		t.Errorf("evicted prompt served %d cached tokens", tr.CachedTokens)
	}
	if tr := h.prefill(t, "a3", words400, nil); tr.CachedTokens != 384 {
		t.Errorf("re-cached prompt served %d cached tokens, want 384", tr.CachedTokens)
	}
}

func TestTokenizerCharsPerTokenAndNoTokenize(t *testing.T) {
	o := cacheOptions()
	o.CharsPerToken = 3
	h := start(t, o)
	content := "the government of a country" // 1 + 4 + 1 + 1 + 3
	resp := h.post(t.Context(), "/tokenize", map[string]any{"messages": []map[string]string{{"role": "user", "content": content}}})
	var out struct{ Count int }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if tr := h.prefill(t, "p", content, nil); out.Count != 10 || tr.PromptTokens != 10 {
		t.Errorf("tokenize count %d, usage %d, want 10", out.Count, tr.PromptTokens)
	}
	o.NoTokenize = true
	h = start(t, o)
	resp = h.post(t.Context(), "/tokenize", map[string]any{"prompt": "x"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("NoTokenize: /tokenize answered %d", resp.StatusCode)
	}
}

func TestChatTemplateTokens(t *testing.T) {
	o := cacheOptions()
	o.ChatTemplateTokens = 7
	h := start(t, o)
	count := func(body map[string]any) int {
		resp := h.post(t.Context(), "/tokenize", body)
		defer resp.Body.Close()
		var out struct{ Count int }
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return out.Count
	}
	msgs := []map[string]string{{"role": "user", "content": "one two three"}}
	if got := count(map[string]any{"messages": msgs}); got != 10 {
		t.Errorf("vLLM-style /tokenize of messages: %d, want 3 + 7 template tokens", got)
	}
	if got := count(map[string]any{"content": "one two three"}); got != 3 {
		t.Errorf("llama.cpp-style /tokenize of content: %d, want 3", got)
	}
	if tr := h.prefill(t, "chat", "one two three", nil); tr.PromptTokens != 10 {
		t.Errorf("chat usage: %d prompt tokens, want 10", tr.PromptTokens)
	}
}

// POST /reset_prefix_cache empties the hashed cache, as vLLM's does: the
// same prompt is cold again after it, and the call is counted.
func TestPrefixCacheReset(t *testing.T) {
	h := start(t, cacheOptions())
	h.prefill(t, "a", words400, nil)
	if tr := h.prefill(t, "b", words400, nil); tr.CachedTokens != 384 {
		t.Fatalf("before the reset: %d cached tokens, want 384", tr.CachedTokens)
	}
	resp := h.post(t.Context(), "/reset_prefix_cache", map[string]any{})
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || h.s.PrefixCacheResets() != 1 {
		t.Fatalf("reset: status %d, %d resets counted", resp.StatusCode, h.s.PrefixCacheResets())
	}
	if tr := h.prefill(t, "c", words400, nil); tr.CachedTokens != 0 {
		t.Errorf("after the reset: %d cached tokens, want 0", tr.CachedTokens)
	}
}
