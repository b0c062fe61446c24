package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// bench --web.listen-address counts max_itl violations as the daemon
// does: stalled successes (every 3rd answer freezes 300 ms, past
// max_itl:150) and, with a --timeout shorter than the stall, decode
// timeouts whose open gap passed it; they are not good. The model name,
// from a server's /v1/models, is escaped in the labels: no ESC reaches
// whoever curls /metrics.
func TestBenchLiveCountsStalls(t *testing.T) {
	const evil = "mock\x1b[31m-model"
	for _, c := range []struct {
		name    string
		timeout string
	}{{"stalled successes", "10s"}, {"decode timeouts", "250ms"}} {
		t.Run(c.name, func(t *testing.T) {
			o := mocktarget.FixedMock()
			o.TTFT, o.ITL, o.Model = mockvllm.Dist{Mean: 5 * time.Millisecond}, mockvllm.Dist{Mean: 2 * time.Millisecond}, evil
			o.DecodeStall = mockvllm.DecodeStall{Every: 3, For: 300 * time.Millisecond, AfterTokens: 2}
			url := mocktarget.Serve(t, o, nil)
			out := filepath.Join(t.TempDir(), "r.json")
			var raw string
			var final map[string]*dto.MetricFamily
			hook := func(addr string, closing bool) {
				if !closing {
					return
				}
				resp, err := http.Get("http://" + addr + "/metrics")
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				raw = string(b)
				final, err = scrapeLive(addr)
				if err != nil {
					t.Error(err)
				}
			}
			code, stdout, log := benchLiveCLI(t, hook, "--url", url, "--request-rate", "50", "--num-prompts", "12",
				"--input-tokens", "8", "--output-tokens", "6", "--ignore-eos", "--goodput", "max_itl:150", "--timeout", c.timeout,
				"--output-json", out, "--progress", "off", "--no-server-metrics", "--web.listen-address", "127.0.0.1:0")
			if code != 0 && code != ExitFailed {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
			}
			var res struct {
				Completed int
				Requests  []struct {
					Success bool
					Reason  string
					MaxITL  float64 `json:"max_itl"`
				}
			}
			readJSON(t, out, &res)
			stalled, timedOut := 0, 0
			for _, q := range res.Requests {
				switch {
				case q.Success && q.MaxITL > 0.15:
					stalled++
				case q.Reason == "timeout_decode" && q.MaxITL > 0.15:
					timedOut++
				}
			}
			if stalled+timedOut != 4 {
				t.Fatalf("%d stalled successes, %d decode timeouts past max_itl, want 4 together (every 3rd of 12)", stalled, timedOut)
			}
			sel := map[string]string{"module": "bench", "model": `mock\x1b[31m-model`}
			if got := liveValue(final, "llm_prober_slo_violations_total", map[string]string{"module": "bench", "slo": "max_itl"}); got != 4 {
				t.Errorf("slo_violations_total{slo=max_itl} = %g, want 4", got)
			}
			if got := liveValue(final, "llm_prober_probes_good_total", sel); got != float64(res.Completed-stalled) {
				t.Errorf("probes_good_total = %g, want %d (completed %d, %d stalled)", got, res.Completed-stalled, res.Completed, stalled)
			}
			if got := liveValue(final, "llm_prober_slo_seconds", map[string]string{"slo": "max_itl"}); got != 0.15 {
				t.Errorf("slo_seconds{slo=max_itl} = %g, want 0.15", got)
			}
			if got := liveValue(final, "llm_prober_target_info", map[string]string{"model": `mock\x1b[31m-model`}); got != 1 {
				t.Errorf("target_info with the escaped model: %g", got)
			}
			if strings.Contains(raw, "\x1b") {
				t.Error("an ESC in the exposition")
			}
		})
	}
}

// Without --model bench takes the name from /v1/models: an answer that
// never ends is read to 4 MiB, a name past 1 KiB is refused; either is
// one line naming /v1/models, before any request.
func TestBenchModelsAnswerBounded(t *testing.T) {
	for _, c := range []struct {
		name, want string
		body       func(w io.Writer)
	}{
		{"endless", "names none within 4 MiB", func(w io.Writer) {
			io.WriteString(w, `{"data":[{"id":"`)
			chunk := strings.Repeat("a", 64<<10)
			for range 128 { // 8 MiB
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}},
		{"long name", "a model of 2000 bytes (want 1 to 1024)", func(w io.Writer) {
			io.WriteString(w, `{"data":[{"id":"`+strings.Repeat("m", 2000)+`"}]}`)
		}},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/models" {
				t.Errorf("%s: %s requested", c.name, r.URL.Path)
				http.NotFound(w, r)
				return
			}
			c.body(w)
		}))
		code, _, log := benchCLI(t, "--url", ts.URL, "--num-prompts", "1", "--progress", "off", "--no-server-metrics")
		ts.Close()
		if code == 0 || !strings.Contains(log, "/v1/models") || !strings.Contains(log, c.want) {
			t.Errorf("%s: exit %d, want an error with %q:\n%s", c.name, code, c.want, log)
		}
	}
}
