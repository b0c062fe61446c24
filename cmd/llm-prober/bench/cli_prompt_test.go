package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// fakeLlamaCPP is a llama-server with a nCtx-token slot whose generation
// is the mock's, fast.
func fakeLlamaCPP(t *testing.T, nCtx int, hangTokenize bool) *testutil.LlamaCPP {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 2 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	return testutil.NewLlamaCPP(t, o, nCtx, hangTokenize)
}

// llama.cpp's /tokenize answers vLLM's body with an empty list: that is no
// answer, so bench sizes prompts exactly with llama.cpp's body; a run that
// fits the 512-token slot runs, one that cannot is refused before any
// load with an error naming the limit.
func TestBenchLlamaCPPTokenizeAndContext(t *testing.T) {
	l := fakeLlamaCPP(t, 512, false)
	url := l.URL
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "inf", "--num-prompts", "4", "--warmup", "0",
		"--input-tokens", "100", "--output-tokens", "50")
	if code != 0 || !strings.Contains(log, "exact via the server's tokenize endpoint (llamacpp body") ||
		!strings.Contains(log, "server context 512 tokens (llama.cpp /props n_ctx per slot)") {
		t.Fatalf("100 + 50 tokens on a 512-token slot: exit %d\n%s\n%s", code, stdout, log)
	}
	if !strings.Contains(stdout, "Total input tokens:                      400") {
		t.Errorf("want 4 prompts of exactly 100 tokens:\n%s", stdout)
	}
	before := l.Generations.Load()
	code, stdout, log = benchCLI(t, "--url", url, "--request-rate", "inf", "--num-prompts", "4", "--warmup", "0",
		"--input-tokens", "600", "--output-tokens", "50")
	if code != 1 || !strings.Contains(log, "--input-tokens 600 + --output-tokens 50 do not fit the server's context of 512 tokens (llama.cpp /props n_ctx") {
		t.Errorf("600 + 50 tokens on a 512-token slot: exit %d, want 1 with an error naming 512\n%s\n%s", code, stdout, log)
	}
	if n := l.Generations.Load() - before; n != 0 {
		t.Errorf("%d generation requests before refusing", n)
	}
}

// A /tokenize that never answers costs bench at most --timeout (its own
// phase, named in the log with the time waited); prompts are then
// calibrated from usage and the run goes on.
func TestBenchHangingTokenizeIsBounded(t *testing.T) {
	code, stdout, log := benchCLI(t, "--url", fakeLlamaCPP(t, 4096, true).URL, "--request-rate", "inf", "--num-prompts", "4", "--warmup", "0",
		"--input-tokens", "40", "--output-tokens", "4", "--timeout", "2s")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	for _, want := range []string{"tokenize endpoint unusable", "/tokenize: no answer in 2", "calibrated from usage.prompt_tokens"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}
