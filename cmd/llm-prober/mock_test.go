package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// The mock's CLI gives what tests use in-process (the hashed prefix cache,
// per-token prefill, the batch slowdown made explicit) and GET /trace
// gives each request's true timings over HTTP.
func TestMockCLIPrefixCacheAndTrace(t *testing.T) {
	app := kingpin.New("llm-prober", "")
	var m mockFlags
	m.register(app.Command("mock-vllm", mockHelp))
	if _, err := app.Parse([]string{"mock-vllm", "--prefix-cache-blocks", "1024", "--prefill-per-token", "1ms",
		"--batch-slowdown", "0s", "--ttft", "2ms", "--ttft-jitter", "0s", "--itl", "1ms", "--itl-jitter", "0s"}); err != nil {
		t.Fatal(err)
	}
	o, err := m.options()
	if err != nil {
		t.Fatal(err)
	}
	if o.PrefixCacheBlocks != 1024 || o.PrefillPerToken.Milliseconds() != 1 || o.BatchSlowdown != 0 {
		t.Fatalf("options %+v", o)
	}
	mock := mockvllm.New(o)
	ts := httptest.NewServer(mock)
	t.Cleanup(func() { mock.Close(); ts.Close() })
	prompt := strings.TrimSpace(strings.Repeat("alpha beta gamma delta ", 20)) // 80 tokens
	trace := func(id string) map[string]any {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"model": o.Model, "max_tokens": 4, "stream": true, "ignore_eos": true,
			"messages": []map[string]string{{"role": "user", "content": prompt}}})
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-Id", id)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		resp, err = ts.Client().Get(ts.URL + "/trace?id=" + id)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var tr map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /trace: %d, %v", resp.StatusCode, err)
		}
		return tr
	}
	cold, warm := trace("cold"), trace("warm")
	if cold["cached_tokens"].(float64) != 0 || warm["cached_tokens"].(float64) != 64 {
		t.Errorf("cached tokens cold %v, warm %v (want 0 and 64: 4 full blocks of 16 in 79 tokens)", cold["cached_tokens"], warm["cached_tokens"])
	}
	// Prefill: 80 uncached tokens at 1 ms each, then 16: the TTFTs are at
	// least 2 + 80 and 2 + 16 ms (lower bounds only: load only adds).
	if ct, wt := cold["ttft_ms"].(float64), warm["ttft_ms"].(float64); ct < 82 || wt < 18 {
		t.Errorf("TTFT cold %v ms, warm %v ms", ct, wt)
	}
	if gaps := cold["content_gaps_ms"].([]any); len(gaps) != 3 {
		t.Errorf("%d content gaps, want 3 for 4 one-token steps", len(gaps))
	}
	resp, err := ts.Client().Get(ts.URL + "/trace?id=nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown id: %d, want 404", resp.StatusCode)
	}
}

// The mock as a reference over HTTP: every request bench measured has a
// trace under its X-Request-Id, and bench's TTFT and latency, taken from
// before the send to after the receive, are never below the server's own
// (from its arrival to its write).
func TestMockTraceChecksBench(t *testing.T) {
	url := mocktarget.URL(t)
	out := t.TempDir() + "/r.json"
	if code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "100", "--num-prompts", "10", "--input-tokens", "16",
		"--output-tokens", "4", "--progress", "off", "--no-server-metrics", "--output-json", out); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Requests []struct {
			Index   int     `json:"index"`
			TTFT    float64 `json:"ttft"`
			Latency float64 `json:"latency"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Requests) != 10 {
		t.Fatalf("%d requests, %v", len(res.Requests), err)
	}
	for _, r := range res.Requests {
		resp, err := http.Get(url + "/trace?id=bench-" + strconv.Itoa(r.Index))
		if err != nil {
			t.Fatal(err)
		}
		var tr struct {
			TTFT float64 `json:"ttft_ms"`
			E2EL float64 `json:"e2el_ms"`
		}
		err = json.NewDecoder(resp.Body).Decode(&tr)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("trace of bench-%d: %d, %v", r.Index, resp.StatusCode, err)
		}
		if tr.TTFT <= 0 || r.TTFT*1000 < tr.TTFT || r.Latency*1000 < tr.E2EL {
			t.Errorf("bench-%d: bench TTFT %.3f ms, latency %.3f ms; server %.3f and %.3f ms", r.Index, r.TTFT*1000, r.Latency*1000, tr.TTFT, tr.E2EL)
		}
	}
}

// The stall flags reach the mock's options, and bad values are refused
// before it serves.
func TestMockCLIStallFlags(t *testing.T) {
	parse := func(args ...string) (mockvllm.Options, error) {
		app := kingpin.New("llm-prober", "")
		var m mockFlags
		m.register(app.Command("mock-vllm", mockHelp))
		if _, err := app.Parse(append([]string{"mock-vllm"}, args...)); err != nil {
			return mockvllm.Options{}, err
		}
		return m.options()
	}
	o, err := parse("--stall-every", "5", "--stall-for", "1500ms", "--stall-after-tokens", "7")
	if err != nil {
		t.Fatal(err)
	}
	if want := (mockvllm.DecodeStall{Every: 5, For: 1500 * time.Millisecond, AfterTokens: 7}); o.DecodeStall != want {
		t.Errorf("stall %+v, want %+v", o.DecodeStall, want)
	}
	for _, bad := range [][]string{{"--stall-every", "-1"}, {"--stall-for", "-1s"}, {"--stall-after-tokens", "0"}} {
		if _, err := parse(bad...); err == nil || !strings.Contains(err.Error(), "--stall") {
			t.Errorf("%v: err %v, want one naming the flag", bad, err)
		}
	}
}
