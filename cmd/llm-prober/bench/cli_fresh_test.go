package bench

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// A server with a prefix cache but neither cache_salt nor a reset
// endpoint (llama.cpp's case): two runs without --seed draw their own
// seeds, so the second shares no prefix with the first; --seed N repeats
// a run's prompts exactly (the cache serves them), and the report then
// does not call them fresh.
func TestBenchCLIRunsFreshWithoutSaltOrReset(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 2 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	o.PrefixCacheBlocks = 1 << 16
	mock := mockvllm.New(o)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/reset_prefix_cache" {
			http.NotFound(w, r)
			return
		}
		mock.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { mock.Close(); ts.Close() })
	type result struct {
		Cached  float64        `json:"llm_prober_cached_prompt_tokens"`
		Prompts map[string]any `json:"llm_prober_prompts"`
		Inputs  []float64      `json:"input_lens"`
	}
	run := func(extra ...string) (result, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "r.json")
		args := append([]string{"--url", ts.URL, "--request-rate", "200", "--num-prompts", "8", "--input-tokens", "64",
			"--range-ratio", "0.5", "--output-tokens", "2", "--progress", "off", "--no-server-metrics", "--output-json", out}, extra...)
		code, stdout, log := benchCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
		}
		var res result
		readJSON(t, out, &res)
		return res, log
	}
	first, log1 := run()
	second, log2 := run()
	if second.Cached != 0 {
		t.Errorf("a second run without --seed: %g cached prompt tokens, want 0 (fresh across runs)", second.Cached)
	}
	s1, s2 := first.Prompts["seed"], second.Prompts["seed"]
	if s1 == s2 || first.Prompts["seed_random"] != true || first.Prompts["fresh"] != true || first.Prompts["cache_salt"] != false {
		t.Errorf("runs without --seed: prompts %v and %v, want two random seeds, fresh, no salt", first.Prompts, second.Prompts)
	}
	seed := int64(s1.(float64))
	if want := "seed " + itoa(seed) + " drawn at random (--seed " + itoa(seed) + " repeats this run exactly)"; !strings.Contains(log1, want) {
		t.Errorf("log lacks %q:\n%s", want, log1)
	}
	if !strings.Contains(log2, "prompts: fresh: seed") || !strings.Contains(log2, "no cache_salt") {
		t.Errorf("log does not say how the prompts were fresh:\n%s", log2)
	}
	// --seed repeats the first run: the same lengths, and this server's
	// cache serves every prompt but its last block.
	again, log := run("--seed", itoa(seed))
	slices.Sort(again.Inputs) // in completion order
	slices.Sort(first.Inputs)
	if again.Cached == 0 || !slices.Equal(again.Inputs, first.Inputs) {
		t.Errorf("--seed %d: %g cached tokens (want > 0), input lengths %v vs %v", seed, again.Cached, again.Inputs, first.Inputs)
	}
	if again.Prompts["fresh"] != false || !strings.Contains(log, "NOT fresh across runs") {
		t.Errorf("--seed on a server without salt or reset is called fresh: %v\n%s", again.Prompts, log)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
