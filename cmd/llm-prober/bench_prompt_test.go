package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// fakeLlamaCPP serves the mock's generation behind llama-server's other
// endpoints: POST /tokenize takes {"content"} and answers {"tokens"} alone,
// and answers vLLM's body with 200 {"tokens":[]}; GET /props has the
// per-slot context (-c 2048 -np 4: 512), which generation enforces too;
// /v1/models has no max_model_len. generations counts generation requests.
func fakeLlamaCPP(t *testing.T, nCtx int, hangTokenize bool) (url string, generations *atomic.Int64) {
	t.Helper()
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 2 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	o.MaxModelLen = nCtx
	mock := mockvllm.New(o)
	generations = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tokenize":
			body, _ := io.ReadAll(r.Body)
			if hangTokenize {
				select { // bounded, so that a client without a deadline fails rather than hangs
				case <-r.Context().Done():
				case <-time.After(20 * time.Second):
					http.NotFound(w, r)
				}
				return
			}
			var req map[string]any
			if json.Unmarshal(body, &req) != nil || req["content"] == nil {
				fmt.Fprint(w, `{"tokens":[]}`)
				return
			}
			rec := httptest.NewRecorder()
			mock.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/tokenize", bytes.NewReader(body)))
			var out struct {
				Tokens []int `json:"tokens"`
			}
			_ = json.Unmarshal(rec.Body.Bytes(), &out)
			_ = json.NewEncoder(w).Encode(map[string]any{"tokens": out.Tokens})
		case "/props":
			fmt.Fprintf(w, `{"default_generation_settings":{"n_ctx":%d,"params":{"n_predict":-1}},"total_slots":4}`, nCtx)
		case "/v1/models":
			fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","owned_by":"llamacpp","meta":{"n_ctx_train":8192}}]}`, o.Model)
		default:
			if strings.HasPrefix(r.URL.Path, "/v1/chat/") || strings.HasPrefix(r.URL.Path, "/v1/completions") {
				generations.Add(1)
			}
			mock.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(func() { mock.Close(); srv.Close() })
	return srv.URL, generations
}

// llama.cpp's /tokenize answers vLLM's body with an empty list: that is no
// answer, so bench sizes prompts exactly with llama.cpp's body; a run that
// fits the 512-token slot runs, one that cannot is refused before any
// load with an error naming the limit.
func TestBenchLlamaCPPTokenizeAndContext(t *testing.T) {
	url, generations := fakeLlamaCPP(t, 512, false)
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "inf", "--num-prompts", "4", "--warmup", "0",
		"--input-tokens", "100", "--output-tokens", "50")
	if code != 0 || !strings.Contains(log, "exact via the server's tokenize endpoint") {
		t.Fatalf("100 + 50 tokens on a 512-token slot: exit %d\n%s\n%s", code, stdout, log)
	}
	if !strings.Contains(stdout, "Total input tokens:                      400") {
		t.Errorf("want 4 prompts of exactly 100 tokens:\n%s", stdout)
	}
	before := generations.Load()
	code, stdout, log = benchCLI(t, "--url", url, "--request-rate", "inf", "--num-prompts", "4", "--warmup", "0",
		"--input-tokens", "600", "--output-tokens", "50")
	if code != 1 || !strings.Contains(log, "--input-tokens 600 + --output-tokens 50 do not fit the server's context of 512 tokens (llama.cpp /props n_ctx") {
		t.Errorf("600 + 50 tokens on a 512-token slot: exit %d, want 1 with an error naming 512\n%s\n%s", code, stdout, log)
	}
	if n := generations.Load() - before; n != 0 {
		t.Errorf("%d generation requests before refusing", n)
	}
}

// A /tokenize that never answers costs bench at most --timeout (its own
// phase, named in the log with the time waited); prompts are then
// calibrated from usage and the run goes on.
func TestBenchHangingTokenizeIsBounded(t *testing.T) {
	url, _ := fakeLlamaCPP(t, 4096, true)
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "inf", "--num-prompts", "4", "--warmup", "0",
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
