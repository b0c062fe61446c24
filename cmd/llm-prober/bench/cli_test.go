package bench

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// benchCLI parses args as `llm-prober bench` and runs it.
func benchCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	app := kingpin.New("llm-prober", "")
	b := NewCommand(app)
	if _, err := app.Parse(append([]string{"bench"}, args...)); err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	code, err := b.main(t.Context(), &out, &log)
	if err != nil {
		printError(&log, "error:", err)
	}
	return code, out.String(), log.String()
}

// One run end to end: report, server section, JSON with vllm bench's
// keys and every request, and --fail-on's exit code.
func TestBenchCLIRun(t *testing.T) {
	url := mocktarget.URL(t)
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "200", "--num-prompts", "30", "--warmup", "3",
		"--input-tokens", "20", "--output-tokens", "6", "--goodput", "ttft:1000 tpot:1000", "--output-json", out,
		"--progress", "lines", "--fail-on", "goodput<50", "--metrics-interval", "50ms")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	for _, want := range []string{"Serving Benchmark Result", "Successful requests:                     30", "P99.9 TTFT (ms)",
		"Request goodput (req/s)", "Server during the run", "Verdict:", "exact via the server's tokenize endpoint"} {
		if !strings.Contains(stdout+log, want) {
			t.Errorf("output lacks %q:\n%s\n%s", want, stdout, log)
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("bad JSON: %v", err)
	}
	for _, k := range []string{"completed", "request_throughput", "request_goodput", "output_throughput", "mean_ttft_ms",
		"p99_itl_ms", "p99.9_e2el_ms", "std_tpot_ms", "max_concurrent_requests", "ttfts", "itls", "input_lens", "errors"} {
		if _, ok := res[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if reqs := res["requests"].([]any); len(reqs) != 33 || len(res["ttfts"].([]any)) != 30 {
		t.Errorf("%d requests (want 33 with warm-up), %d ttfts", len(reqs), len(res["ttfts"].([]any)))
	}
	code, _, log = benchCLI(t, "--url", url, "--concurrency", "2", "--num-prompts", "6", "--input-tokens", "8",
		"--output-tokens", "4", "--progress", "off", "--no-server-metrics", "--fail-on", "p99_ttft>0.001")
	if code != ExitFailOn || !strings.Contains(log, "fail-on p99_ttft>0.001 holds") {
		t.Errorf("fail-on: exit %d, %s", code, log)
	}
}

func TestBenchCLIPlanOnly(t *testing.T) {
	code, stdout, log := benchCLI(t, "--knee-rate", "4", "--daily-requests", "10000000", "--peak-to-average", "2", "--gpus-per-replica", "8")
	if code != 0 || !strings.Contains(stdout, "=> 116 replicas, 928 GPUs") {
		t.Errorf("exit %d\n%s%s", code, stdout, log)
	}
	// The seed's worked example with the defaults (no peak factor, headroom 2).
	code, stdout, log = benchCLI(t, "--knee-rate", "35", "--daily-requests", "5000000")
	if code != 0 || !strings.Contains(stdout, "ceil(ceil(57.870 / 35.000) × 2) = ceil(2 × 2) = 4") || !strings.Contains(stdout, "=> 4 replicas, 4 GPUs") {
		t.Errorf("worked example: exit %d\n%s%s", code, stdout, log)
	}
	if code, _, _ := benchCLI(t, "--url", "http://127.0.0.1:1", "--goodput", "bogus"); code != 2 {
		t.Errorf("bad --goodput: exit %d, want 2", code)
	}
}

// A sweep over given rates prints the table, the knee and the plan, and
// writes the curve and the per-point JSON.
func TestBenchCLISweep(t *testing.T) {
	url := mocktarget.Saturating(t)
	dir := t.TempDir()
	code, stdout, log := benchCLI(t, "--url", url, "--rates", "10,500", "--num-prompts", "15", "--min-samples", "0", "--input-tokens", "8",
		"--output-tokens", "4", "--goodput", "ttft:600", "--progress", "off", "--no-server-metrics",
		"--curve", filepath.Join(dir, "c.svg"), "--output-json", filepath.Join(dir, "s.json"), "--daily-requests", "1e6")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	for _, want := range []string{"Rate sweep", "<- knee", "Knee (SLO attainment ≥ 99%): ", " req/s achieved (10.00 offered)", "Capacity plan", "GPUs = replicas",
		"Knee rate 95% interval: 10.00–", "First rate past it: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "c.svg"))
	if err != nil || !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte(">knee ")) {
		t.Errorf("curve: %v", err)
	}
	var sj struct {
		Knee   float64          `json:"knee_request_rate"`
		Status string           `json:"llm_prober_knee_status"`
		CI     []float64        `json:"llm_prober_knee_request_rate_ci95"`
		Points []map[string]any `json:"points"`
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "s.json"))
	// 10 and 200 req/s, then two bisections between them.
	if err := json.Unmarshal(raw, &sj); err != nil || sj.Knee != 10 || sj.Status != "found" || len(sj.Points) != 4 ||
		len(sj.CI) != 2 || !(sj.CI[1] > sj.CI[0]) {
		t.Errorf("sweep JSON %+v, %v", sj, err)
	}
	if code, _, _ := benchCLI(t, "--url", url, "--sweep", "--progress", "off"); code != 2 {
		t.Errorf("a sweep without --goodput: exit %d, want 2", code)
	}
}

// --config.file/--target reuses the target's auth (a bearer token from a
// file) for requests, tokenize and metrics, and never prints the token.
func TestBenchCLIConfiguredTargetAuth(t *testing.T) {
	const token = "s3cret-bench-token"
	mock := mockvllm.New(mockvllm.Options{TTFT: mockvllm.Dist{Mean: time.Millisecond}, ITL: mockvllm.Dist{Mean: time.Millisecond}})
	var unauth atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			unauth.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mock.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { mock.Close(); ts.Close() })
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := `modules:
  m: {api: chat, messages: [{role: user, content: hi}]}
targets:
  - name: guarded
    url: ` + ts.URL + `
    model: mock-model
    modules: [m]
    http_client_config:
      authorization: {credentials_file: token}
`
	file := filepath.Join(dir, "llm-prober.yml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, log := benchCLI(t, "--config.file", file, "--target", "guarded", "--request-rate", "100",
		"--num-prompts", "10", "--input-tokens", "8", "--output-tokens", "3", "--progress", "off", "--fail-on", "any-failure")
	if code != 0 || unauth.Load() != 0 {
		t.Fatalf("exit %d, %d unauthorised requests\n%s\n%s", code, unauth.Load(), stdout, log)
	}
	if !strings.Contains(stdout, "Backend (metrics mapping):               vllm") || !strings.Contains(log, "tokenize endpoint") {
		t.Errorf("metrics or tokenize did not get through with the target's auth:\n%s\n%s", stdout, log)
	}
	if strings.Contains(stdout+log, token) {
		t.Error("the token was printed")
	}
	if code, _, log := benchCLI(t, "--config.file", file, "--target", "nope"); code != ExitBadInput || !strings.Contains(log, `no target "nope"`) {
		t.Errorf("unknown target: exit %d, %s", code, log)
	}
}

// readJSON decodes the JSON file at path into v, failing the test if it
// cannot.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v\n%.2000s", path, err, raw)
	}
}
