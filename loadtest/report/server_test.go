package report

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/workload"
	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prompt"
)

// The watcher reads the mock's KV cache, queue, preemptions, prefix-cache
// and spec-decode counters through the collector, and a KV-starved mock
// is judged KV-bound with its evidence.
func TestServerSignalsAndVerdict(t *testing.T) {
	o := mocktarget.FixedMock()
	o.MaxRunning, o.KVBlocks, o.BlockSize = 64, 12, 16 // ~4 requests' worth of KV
	o.PrefixCacheHitRate = 0.5
	o.SpecDecode = &mockvllm.SpecOptions{NumSpeculativeTokens: 3, AcceptanceRate: 0.6}
	_, tg, client := mocktarget.Start(t, o)
	w := serverwatch.Watch(t.Context(), client, tg, 50*time.Millisecond)
	// 30 + 16 tokens: admitted at 2 blocks, each grows to 3 while running,
	// so a full cache must preempt.
	opts := runkit.BaseOptions(tg, client, 30, 16)
	opts.Rate, opts.NumPrompts = math.Inf(1), 24
	srv, rep := runWatched(t, w, opts)
	if !srv.Available || srv.Backend != "vllm" || srv.Scrapes < 2 {
		t.Fatalf("server report %+v", srv)
	}
	if srv.PeakKVUsage < 0.9 || srv.PeakWaiting < 1 || srv.Preemptions < 1 || srv.PreemptionsPer100 <= 0 {
		t.Errorf("a 12-block KV cache under 24 requests: %+v", srv)
	}
	if math.Abs(srv.PrefixHitRate-0.5) > 0.05 || srv.SpecAcceptance <= 0 || srv.SpecAcceptance >= 1 || srv.SpecMeanAccepted <= 1 {
		t.Errorf("prefix hit rate %g (want 0.5), spec acceptance %g, tokens/step %g", srv.PrefixHitRate, srv.SpecAcceptance, srv.SpecMeanAccepted)
	}
	v := summary.Judge(rep, &srv)
	if v.Bottleneck != summary.BottleneckKVCache || len(v.Evidence) == 0 {
		t.Errorf("verdict %+v", v)
	}
	var b strings.Builder
	WriteServer(&srv, &b, v)
	for _, want := range []string{"Peak KV-cache usage", "Preemptions per 100 requests", "kv_cache_exhausted"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("server text lacks %q", want)
		}
	}
}

// A lightly loaded mock is near optimal; one whose running limit makes
// requests queue with KV to spare has too small a batch.
func TestVerdictBatchAndOptimal(t *testing.T) {
	for _, c := range []struct {
		maxRunning int
		want       string
	}{{64, summary.BottleneckOptimal}, {1, summary.BottleneckBatch}} {
		o := mocktarget.FixedMock()
		o.MaxRunning = c.maxRunning
		_, tg, client := mocktarget.Start(t, o)
		w := serverwatch.Watch(t.Context(), client, tg, 20*time.Millisecond)
		// 32 output tokens: prefill stays a small share of E2EL even when
		// a loaded machine delays some first tokens.
		opts := runkit.BaseOptions(tg, client, 8, 32)
		opts.Concurrency, opts.NumPrompts = 4, 24
		srv, rep := runWatched(t, w, opts)
		if v := summary.Judge(rep, &srv); v.Bottleneck != c.want {
			t.Errorf("max running %d: verdict %s, want %s (%v)", c.maxRunning, v.Bottleneck, c.want, v.Evidence)
		}
	}
}

// Prompt lengths are exact through the mock's /tokenize, and the planned
// length is what the server reports as usage.prompt_tokens.
func TestTokenizeSizesPromptsExactly(t *testing.T) {
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	tk := mocktarget.Tokenizer(tg, client)
	z, err := workload.SizeWithTokenizer(t.Context(), tk)
	if err != nil {
		t.Fatal(err)
	}
	w := workload.NewSynthetic(200, 4, 50, 0.3, 9, z)
	if err := z.Check(t.Context(), tk, w, 10); err != nil || z.MaxError != 0 || z.Checked != 10 {
		t.Fatalf("check: %v, %+v", err, z)
	}
	run := runkit.RunWorkload(t, tg, client, w, 10)
	for _, r := range run.Records {
		if r.PromptTokens != r.PlannedPrompt || r.OutputTokens != r.PlannedOutput {
			t.Errorf("request %d: usage %d/%d tokens, planned %d/%d", r.Index, r.PromptTokens, r.OutputTokens, r.PlannedPrompt, r.PlannedOutput)
		}
	}
	// Without a tokenizer: usage calibration finds one token a word.
	u, err := workload.SizeFromUsage(t.Context(), client, tg, "chat", 200, time.Minute)
	if err != nil || u.Method != "usage" || math.Abs(u.TokensPerWord-1) > 1e-9 || u.Overhead != 0 {
		t.Errorf("usage calibration %+v, %v", u, err)
	}
}

// With a sub-word tokenizer (3 bytes a token) and a chat template, prompts
// are still exact through /tokenize: usage is the planned length plus the
// template. Without /tokenize, usage calibration lands close.
func TestSizingSubwordTokenizerAndTemplate(t *testing.T) {
	o := mocktarget.FixedMock()
	o.CharsPerToken, o.ChatTemplateTokens = 3, 5
	_, tg, client := mocktarget.Start(t, o)
	tk := mocktarget.Tokenizer(tg, client)
	z, err := workload.SizeWithTokenizer(t.Context(), tk)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range z.Vocab {
		if len(w) > 3 {
			t.Fatalf("%q is more than one 3-byte token, yet in the vocabulary", w)
		}
	}
	w := workload.NewSynthetic(100, 2, 20, 0.2, 3, z)
	if err := z.Check(t.Context(), tk, w, 8); err != nil || z.MaxError != 0 {
		t.Fatalf("check %v, %+v", err, z)
	}
	run := runkit.RunWorkload(t, tg, client, w, 8)
	for _, r := range run.Records {
		if r.PromptTokens != r.PlannedPrompt+5 {
			t.Errorf("request %d: usage %d prompt tokens, planned %d + 5 of template", r.Index, r.PromptTokens, r.PlannedPrompt)
		}
	}

	o.NoTokenize = true
	_, tg, client = mocktarget.Start(t, o)
	if z, err := workload.SizeWithTokenizer(t.Context(), mocktarget.Tokenizer(tg, client)); !errors.Is(err, prompt.ErrNoTokenizer) {
		t.Fatalf("a server without /tokenize: %+v, %v", z, err)
	}
	u, err := workload.SizeFromUsage(t.Context(), client, tg, "chat", 200, time.Minute)
	if err != nil || u.Method != "usage" || u.TokensPerWord <= 1 || u.Overhead < 3 || u.Overhead > 7 {
		t.Fatalf("usage calibration %+v, %v (want > 1 token a word, ~5 of template)", u, err)
	}
	run = runkit.RunWorkload(t, tg, client, workload.NewSynthetic(200, 2, 0, 0, 4, u), 8)
	for _, r := range run.Records {
		if got := float64(r.PromptTokens - 5); math.Abs(got-200)/200 > 0.15 {
			t.Errorf("request %d: %g prompt tokens without the template, want 200 ± 15%%", r.Index, got)
		}
	}
}

// A gauge the server does not export (llama.cpp: no KV-cache gauge, no
// preemption counter) reads "not reported by the server", never 0.0.
func TestWriteServerNotReported(t *testing.T) {
	var b strings.Builder
	WriteServer(&serverwatch.ServerReport{Available: true, Backend: "llamacpp", Scrapes: 5, RunningReported: true, WaitingReported: true,
		PeakRunning: 4, PrefixHitRate: -1, SpecAcceptance: -1, MeanQueueTime: -1, MeanTTFT: 57 * time.Millisecond}, &b, summary.Verdict{})
	out := b.String()
	for _, want := range []string{"Peak KV-cache usage (%):                 not reported by the server",
		"Preemptions:                             not reported by the server", "Peak running requests:                   4",
		"Server's own mean TTFT (ms):             57.00"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0.0\n") {
		t.Errorf("a missing gauge printed as 0:\n%s", out)
	}
}
