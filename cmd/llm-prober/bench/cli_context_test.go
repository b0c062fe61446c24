package bench

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// contextMock is a mock with a 512-token context whose chat template adds
// 8 tokens and which truncates at its context (llama.cpp's slots) rather
// than refuse; llamaTokenize makes its /tokenize answer only llama.cpp's
// body (content, no template applied); hideContext hides its context size.
func contextMock(t *testing.T, llamaTokenize, hideContext bool) string {
	t.Helper()
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 2 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	o.MaxModelLen, o.ChatTemplateTokens, o.TruncateAtContext, o.PrefixCacheHitRate = 512, 8, true, 0
	o.NoTokenize = hideContext
	mock := mockvllm.New(o)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case hideContext && r.URL.Path == "/v1/models":
			http.NotFound(w, r)
			return
		case llamaTokenize && r.URL.Path == "/tokenize":
			body, _ := io.ReadAll(r.Body)
			if !bytes.Contains(body, []byte(`"content"`)) {
				http.Error(w, "content required", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		mock.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { mock.Close(); ts.Close() })
	return ts.URL
}

// The context check counts the chat template: 478 + 32 tokens fit a
// 512-token context only without the template's 8, so bench refuses them
// before any load, whether the template is counted by /tokenize of
// messages (vLLM's dialect) or by a calibration request (llama.cpp's
// /tokenize applies none). Issue 31: it passed, and the server truncated.
func TestBenchCLIContextCountsChatTemplate(t *testing.T) {
	for _, llama := range []bool{false, true} {
		url := contextMock(t, llama, false)
		code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "100", "--num-prompts", "4", "--input-tokens", "478",
			"--output-tokens", "32", "--progress", "off", "--no-server-metrics")
		if code != ExitError || !strings.Contains(log, "do not fit the server's context of 512 tokens") ||
			!strings.Contains(log, "the largest request needs 518 (prompt 478, output 32, 8 the server adds") {
			t.Errorf("llama.cpp tokenize %v: exit %d\n%s\n%s", llama, code, stdout, log)
		}
		// 470 + 32 + 8 fit exactly: the run goes ahead, whole outputs.
		code, stdout, log = benchCLI(t, "--url", url, "--request-rate", "100", "--num-prompts", "4", "--input-tokens", "470",
			"--output-tokens", "32", "--progress", "off", "--no-server-metrics")
		if code != 0 || !strings.Contains(log, "chat template 8 tokens") || strings.Contains(stdout, "cut short") {
			t.Errorf("llama.cpp tokenize %v, a fitting run: exit %d\n%s\n%s", llama, code, stdout, log)
		}
	}
}

// A server that hides its context and truncates: every output is cut
// short of --output-tokens with ignore_eos set. Bench flags them (a
// count in the report and JSON, a warning, the verdict's caveat) and does
// not count them as good, instead of reporting clean 26-token successes.
func TestBenchCLIFlagsCutShortOutputs(t *testing.T) {
	url := contextMock(t, false, true)
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, log := benchCLI(t, "--url", url, "--model", "mock-model", "--request-rate", "100", "--num-prompts", "6", "--input-tokens", "478",
		"--output-tokens", "32", "--progress", "off", "--metrics-interval", "50ms", "--goodput", "e2el:60000", "--output-json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	var res struct {
		CutShort float64   `json:"llm_prober_cut_short_requests"`
		Goodput  float64   `json:"llm_prober_goodput_percent"`
		Outputs  []float64 `json:"output_lens"`
	}
	readJSON(t, out, &res)
	if res.CutShort != 6 || res.Goodput != 0 || len(res.Outputs) != 6 || res.Outputs[0] >= 32 {
		t.Errorf("cut short %g (want 6), goodput %g%% (want 0), outputs %v", res.CutShort, res.Goodput, res.Outputs)
	}
	want := "warning: 6 of 6 successful requests were cut short of their planned output by the server although ignore_eos was set"
	if !strings.Contains(stdout, want) || !strings.Contains(stdout, "caveat: 6 of 6 successful requests were cut short") {
		t.Errorf("report lacks the warning and caveat:\n%s", stdout)
	}
	// compare recounts SLO attainment as the run did (issue 34): the cut
	// short outputs are not good there either (it counted 100 %).
	cmpJSON := filepath.Join(filepath.Dir(out), "cmp.json")
	if code, stdout, log := compareCLI(t, "--output-json", cmpJSON, out, out); code != 0 {
		t.Fatalf("compare: exit %d\n%s%s", code, stdout, log)
	}
	var cmp struct {
		Metrics []struct {
			Key       string
			Base, New *float64
		}
	}
	readJSON(t, cmpJSON, &cmp)
	for _, m := range cmp.Metrics {
		if m.Key == "goodput" && (m.Base == nil || *m.Base != res.Goodput || *m.New != res.Goodput) {
			t.Errorf("compare's SLO attainment %v, the run's %g%%", deref(m.Base), res.Goodput)
		}
	}
}
