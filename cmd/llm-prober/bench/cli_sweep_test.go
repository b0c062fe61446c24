package bench

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// The automatic sweep on the mock: a shortened synchronous baseline, a
// max-throughput run and rates evenly between them in the table, then
// the knee line; with --percentiles 50,90 nothing is NaN, and the JSON
// has every point's requests under vllm bench's keys.
func TestBenchCLIAutoSweep(t *testing.T) {
	url := mocktarget.URL(t)
	dir := t.TempDir()
	code, stdout, log := benchCLI(t, "--url", url, "--sweep", "--sweep-steps", "2", "--sweep-refine", "0",
		"--num-prompts", "20", "--min-samples", "0", "--input-tokens", "8", "--output-tokens", "4", "--goodput", "ttft:5000",
		"--percentiles", "50,90", "--progress", "off", "--no-server-metrics",
		"--curve", filepath.Join(dir, "c.svg"), "--output-json", filepath.Join(dir, "s.json"))
	// Every rate held: the knee is only a lower bound (exit 4, issue 31).
	if code != ExitFailed || !strings.Contains(log, "(lower bound): extend --rates") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	if strings.Contains(stdout+log, "NaN") {
		t.Errorf("NaN in the output:\n%s\n%s", stdout, log)
	}
	row := func(l string) []string { return strings.Fields(l) }
	var syncRow, maxRow []string
	var rates [][]string
	for _, l := range strings.Split(stdout, "\n") {
		switch f := row(l); {
		case len(f) == 0:
		case f[0] == "synchronous":
			syncRow = f
		case f[0] == "max-throughput":
			maxRow = f
		case f[0] == "rate":
			rates = append(rates, f)
		}
	}
	if syncRow == nil || maxRow == nil || len(rates) < 2 {
		t.Fatalf("the table lacks the baseline, the max or two rates:\n%s", stdout)
	}
	if syncRow[1] != "1" || syncRow[2] != "user" || maxRow[1] != "inf" {
		t.Errorf("baseline %v, max %v", syncRow, maxRow)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	// Columns: run, offered (2 for "1 user"), req/s, …
	lo, hi := num(syncRow[3]), num(maxRow[2])
	hi = max(hi, lo*1.1)
	r1, r2 := num(rates[0][1]), num(rates[1][1])
	if d := r1 - (lo+hi)/2; d > 0.02*hi || d < -0.02*hi || r2 < hi*0.98 || r2 > hi*1.02 {
		t.Errorf("rates %.2f, %.2f; want half way and all the way from %.2f to %.2f:\n%s", r1, r2, lo, hi, stdout)
	}
	if !strings.Contains(stdout, "<- knee above (lower bound)") || !strings.Contains(stdout, "Knee (SLO attainment ≥ 99%): knee above ") || !strings.Contains(stdout, "p90 TTFT") {
		t.Errorf("no knee line or p90 columns:\n%s", stdout)
	}
	if !strings.Contains(log, "synchronous: ") || !strings.Contains(log, "max throughput: ") {
		t.Errorf("log lacks the baseline or the max run:\n%s", log)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "c.svg"))
	if err != nil || bytes.Contains(svg, []byte("NaN")) || !bytes.Contains(svg, []byte("p90 TTFT")) {
		t.Errorf("curve: %v, NaN or no p90 panel", err)
	}
	var sj struct {
		Points []map[string]any `json:"points"`
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "s.json"))
	if err := json.Unmarshal(raw, &sj); err != nil || len(sj.Points) != 2+len(rates) {
		t.Fatalf("sweep JSON: %d points, %v\n%s", len(sj.Points), err, raw)
	}
	for i, p := range sj.Points {
		reqs, _ := p["requests"].([]any)
		ttfts, _ := p["ttfts"].([]any)
		want := 20
		if p["kind"] == "synchronous" {
			want = 5
		}
		if len(reqs) != want || len(ttfts) != want || p["completed"] != float64(want) {
			t.Errorf("point %d (%v): %d requests, %d ttfts, completed %v; want %d", i, p["kind"], len(reqs), len(ttfts), p["completed"], want)
		}
		for _, k := range []string{"kind", "bottleneck", "request_throughput", "p90_ttft_ms", "itls", "output_lens", "errors"} {
			if _, ok := p[k]; !ok {
				t.Errorf("point %d lacks %q", i, k)
			}
		}
		if len(reqs) == 0 {
			continue
		}
		if r, ok := reqs[0].(map[string]any); !ok || r["ttft"] == nil || r["success"] != true {
			t.Errorf("point %d: request %v", i, reqs[0])
		}
	}
}

// A sweep against a server with a hashed prefix cache: every point gets
// fresh prompts (a new seed), the cache is reset before each point and
// the report says so, so no point is served from the cache the earlier
// ones filled. With --prefix-tokens the workload asks for sharing: the
// same prompts, no reset, and later points hit the cache.
func TestBenchCLISweepFreshPrompts(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 2 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	o.PrefixCacheBlocks = 1 << 16
	mock := mockvllm.New(o)
	ts := httptest.NewServer(mock)
	t.Cleanup(func() { mock.Close(); ts.Close() })
	cached := func(extra ...string) ([]float64, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "s.json")
		args := append([]string{"--url", ts.URL, "--rates", "100,200", "--num-prompts", "10", "--min-samples", "0", "--input-tokens", "64",
			"--output-tokens", "2", "--goodput", "ttft:5000", "--progress", "off", "--no-server-metrics", "--output-json", out}, extra...)
		code, stdout, log := benchCLI(t, args...)
		// Every rate held: the knee is only a lower bound (exit 4, issue 31).
		if code != ExitFailed || !strings.Contains(log, "(lower bound): extend --rates") {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
		}
		var res struct {
			Prompts string `json:"llm_prober_prompts"`
			Points  []struct {
				Cached  float64        `json:"llm_prober_cached_prompt_tokens"`
				Prompts map[string]any `json:"llm_prober_prompts"`
			} `json:"points"`
		}
		readJSON(t, out, &res)
		var c []float64
		for _, p := range res.Points {
			c = append(c, p.Cached)
		}
		if !strings.Contains(stdout, "Prompts: "+res.Prompts) {
			t.Errorf("the table does not say which prompts were used (%q):\n%s", res.Prompts, stdout)
		}
		return c, res.Prompts
	}
	c, desc := cached()
	if len(c) != 2 || c[0] != 0 || c[1] != 0 {
		t.Errorf("cached prompt tokens per point %v, want none: fresh prompts", c)
	}
	if mock.PrefixCacheResets() != 2 || !strings.Contains(desc, "reset before each point") || !strings.Contains(desc, "cache_salt") {
		t.Errorf("%d resets (want 2), prompts %q", mock.PrefixCacheResets(), desc)
	}
	c, desc = cached("--prefix-tokens", "32")
	if len(c) != 2 || c[1] == 0 || mock.PrefixCacheResets() != 2 || !strings.Contains(desc, "the same prompts") {
		t.Errorf("shared prefix: cached %v, %d resets, prompts %q", c, mock.PrefixCacheResets(), desc)
	}
}

// Each open-loop point sizes itself to --min-samples measured requests
// whatever --num-prompts says; the report gives each point's p99 interval
// and the knee's, and warns where p99 rests on too few samples.
func TestBenchCLISweepMinSamples(t *testing.T) {
	url := mocktarget.URL(t)
	out := filepath.Join(t.TempDir(), "s.json")
	code, stdout, log := benchCLI(t, "--url", url, "--rates", "100,150", "--num-prompts", "10", "--min-samples", "40",
		"--input-tokens", "8", "--output-tokens", "3", "--goodput", "ttft:5000", "--progress", "off", "--no-server-metrics",
		"--output-json", out)
	// Every rate held: the knee is only a lower bound (exit 4, issue 31).
	if code != ExitFailed || !strings.Contains(log, "(lower bound): extend --rates") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	for _, want := range []string{"p99 95% confidence intervals", "n=40", "Knee rate 95% interval: above 150.00 req/s",
		"warning: 100.00 req/s offered: p99, p99.9 TTFT, TPOT, E2EL rest on 40 samples (p99 needs 100"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	var res struct {
		Points []struct {
			N        int        `json:"num_prompts"`
			CI       []*float64 `json:"llm_prober_p99_ttft_ci95_ms"`
			P99      float64    `json:"p99_ttft_ms"`
			Warnings []string   `json:"llm_prober_sample_warnings"`
		} `json:"points"`
	}
	readJSON(t, out, &res)
	for i, p := range res.Points {
		// 40 requests cannot bound a p99 above: the upper end is null.
		if p.N != 40 || len(p.CI) != 2 || p.CI[0] == nil || *p.CI[0] > p.P99 || p.CI[1] != nil || len(p.Warnings) == 0 {
			t.Errorf("point %d: %d requests (want 40), p99 %g, CI %v, warnings %v", i, p.N, p.P99, p.CI, p.Warnings)
		}
	}
}

// Single runs with the same seed against a prefix cache: with
// --no-fresh-prompts the second is served from the cache the first
// filled; by default each run gets a new cache_salt and a reset first, so
// none is.
func TestBenchCLIRunFreshPrompts(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 2 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	o.PrefixCacheBlocks = 1 << 16
	mock := mockvllm.New(o)
	ts := httptest.NewServer(mock)
	t.Cleanup(func() { mock.Close(); ts.Close() })
	cached := func(extra ...string) float64 {
		t.Helper()
		out := filepath.Join(t.TempDir(), "r.json")
		args := append([]string{"--url", ts.URL, "--request-rate", "200", "--num-prompts", "8", "--input-tokens", "64",
			"--output-tokens", "2", "--progress", "off", "--no-server-metrics", "--output-json", out}, extra...)
		if code, stdout, log := benchCLI(t, args...); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
		}
		var res struct {
			Cached float64 `json:"llm_prober_cached_prompt_tokens"`
		}
		readJSON(t, out, &res)
		return res.Cached
	}
	cached("--no-fresh-prompts")
	if c := cached("--no-fresh-prompts"); c == 0 {
		t.Error("--no-fresh-prompts: no cache hits on the same prompts")
	}
	if c := cached(); c != 0 {
		t.Errorf("a run after them: %g cached prompt tokens, want 0", c)
	}
	if c := cached(); c != 0 {
		t.Errorf("the next run: %g cached prompt tokens, want 0", c)
	}
}

// A vLLM server without the reset endpoint (no VLLM_SERVER_DEV_MODE),
// known as vLLM by its metrics: each run's requests carry a new
// cache_salt, which alone keeps the second run out of the first's cache.
func TestBenchCLICacheSaltWithoutReset(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 2 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	o.PrefixCacheBlocks = 1 << 16
	mock := mockvllm.New(o)
	var salted atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/reset_prefix_cache":
			http.NotFound(w, r)
			return
		case "/v1/chat/completions":
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"cache_salt":"llm-prober-bench-`)) {
				salted.Add(1)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		mock.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { mock.Close(); ts.Close() })
	run := func() (float64, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "r.json")
		code, stdout, log := benchCLI(t, "--url", ts.URL, "--request-rate", "200", "--num-prompts", "8", "--input-tokens", "64",
			"--output-tokens", "2", "--progress", "off", "--metrics-interval", "50ms", "--output-json", out)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
		}
		var res struct {
			Cached float64 `json:"llm_prober_cached_prompt_tokens"`
		}
		readJSON(t, out, &res)
		return res.Cached, log
	}
	run()
	c, log := run()
	if c != 0 || salted.Load() != 16 || !strings.Contains(log, "a new cache_salt, no prefix-cache reset") {
		t.Errorf("second run: %g cached tokens (want 0), %d of 16 requests salted\n%s", c, salted.Load(), log)
	}
}

// A sweep says before its points run how long --min-samples makes them
// when it lengthens --duration (issue 33: 60 s points became more than
// an hour, silently): 20 requests at 10 req/s take 2 s, not 500 ms.
func TestBenchCLISweepAnnouncesLength(t *testing.T) {
	url := mocktarget.URL(t)
	code, stdout, log := benchCLI(t, "--url", url, "--rates", "10,40", "--duration", "500ms", "--min-samples", "20",
		"--input-tokens", "8", "--output-tokens", "3", "--goodput", "ttft:5000", "--progress", "off", "--no-server-metrics")
	if code != 0 && code != ExitFailed { // the mock never saturates: a lower bound, exit 4
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	first := strings.Index(log, " 10.00 req/s: ")
	if first < 0 {
		t.Fatalf("no result line of the 10 req/s point:\n%s", log)
	}
	for _, want := range []string{
		"sweep: --min-samples 20 lengthens --duration 500ms at rates below 40.00 req/s (20 requests a point; at 1 req/s 20s); --min-samples 0 keeps 500ms a point",
		"sweep: 2 points from 10.00 to 40.00 req/s take about 3s (not 1s: --min-samples 20; the lowest rate alone 2s), more if the sweep extends or refines",
	} {
		if i := strings.Index(log, want); i < 0 || i > first {
			t.Errorf("the log lacks, before the first point's result, %q:\n%s", want, log)
		}
	}
}
