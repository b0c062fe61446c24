package bench

import (
	"bytes"
	"io"
	"math"
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
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// benchLiveCLI runs bench with hook on its live listener.
func benchLiveCLI(t *testing.T, hook func(addr string, closing bool), args ...string) (int, string, string) {
	t.Helper()
	app := kingpin.New("llm-prober", "")
	b := NewCommand(app)
	if _, err := app.Parse(append([]string{"bench"}, args...)); err != nil {
		t.Fatal(err)
	}
	b.LiveHook = hook
	var out, log bytes.Buffer
	code, err := b.main(t.Context(), &out, &log)
	if err != nil {
		log.WriteString("error: " + err.Error())
	}
	return code, out.String(), log.String()
}

func scrapeLive(addr string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(bytes.NewReader(raw))
}

// liveValue is the value (a histogram's count) of name's series whose
// labels include want, or NaN if there is none.
func liveValue(mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	mf := mfs[name]
	if mf == nil {
		return math.NaN()
	}
	sum, found := 0.0, false
outer:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, lp := range m.GetLabel() {
			have[lp.GetName()] = lp.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue outer
			}
		}
		found = true
		switch {
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		}
	}
	if !found {
		return math.NaN()
	}
	return sum
}

// bench --web.listen-address serves the daemon's families for the run's
// requests under the run's label, and progress counters; scraped in the
// middle of the run they are partial, scraped at the end they agree with
// --output-json, failures included.
func TestBenchLiveMetricsAgreeWithJSON(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 5 * time.Millisecond}, mockvllm.Dist{Mean: 2 * time.Millisecond}
	o.Faults = mockvllm.FaultRates{mockvllm.FaultError500: 0.1}
	url := mocktarget.Serve(t, o, nil)
	out := filepath.Join(t.TempDir(), "r.json")
	var mid, final map[string]*dto.MetricFamily
	var finalErr error
	midDone := make(chan struct{})
	stop := make(chan struct{})
	hook := func(addr string, closing bool) {
		if closing {
			close(stop)
			<-midDone
			final, finalErr = scrapeLive(addr)
			return
		}
		go func() {
			defer close(midDone)
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				mfs, err := scrapeLive(addr)
				if err != nil {
					continue
				}
				if c := liveValue(mfs, "llm_prober_bench_requests_completed_total", nil); c > 0 && c < 40 {
					mid = mfs
					return
				}
			}
		}()
	}
	code, stdout, log := benchLiveCLI(t, hook, "--url", url, "--request-rate", "25", "--num-prompts", "60", "--warmup", "2",
		"--input-tokens", "16", "--output-tokens", "4", "--goodput", "ttft:1000", "--output-json", out,
		"--progress", "off", "--no-server-metrics", "--label", "canary-a", "--web.listen-address", "127.0.0.1:0")
	if code != 0 && code != ExitFailed { // exit 4 when more than 5% failed
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	if !strings.Contains(log, `live metrics of target "canary-a" on [127.0.0.1:`) {
		t.Errorf("no listener line:\n%s", log)
	}
	if finalErr != nil {
		t.Fatalf("final scrape: %v", finalErr)
	}
	if mid == nil {
		t.Error("no scrape caught the run in its middle")
	}
	var res struct {
		Completed, Failed int
	}
	readJSON(t, out, &res)
	if res.Failed == 0 || res.Completed == 0 {
		t.Fatalf("want both successes and failures, got %+v", res)
	}
	sel := map[string]string{"target": "canary-a", "module": "bench"}
	for name, want := range map[string]float64{
		"llm_prober_bench_requests_completed_total": float64(res.Completed),
		"llm_prober_bench_requests_failed_total":    float64(res.Failed),
		"llm_prober_bench_requests_cancelled_total": 0,
		"llm_prober_bench_warmup_requests_total":    2,
		"llm_prober_bench_requests_sent_total":      62,
		"llm_prober_bench_requests_in_flight":       0,
		"llm_prober_bench_runs_started_total":       1,
		"llm_prober_bench_target_request_rate":      25,
		"llm_prober_bench_concurrency":              0,
		"llm_prober_probes_total":                   float64(res.Completed + res.Failed),
		"llm_prober_time_to_first_token_seconds":    float64(res.Completed),
		"llm_prober_e2e_latency_seconds":            float64(res.Completed),
		"llm_prober_probe_failures_total":           float64(res.Failed),
		"llm_prober_probes_good_total":              float64(res.Completed),
		"llm_prober_slo_seconds":                    1,
		"llm_prober_target_info":                    1,
		"llm_prober_build_info":                     math.NaN(), // absent: LLMProberDown would page when bench exits
	} {
		labels := sel
		if strings.HasPrefix(name, "llm_prober_bench_") || name == "llm_prober_build_info" {
			labels = nil
		}
		if name == "llm_prober_target_info" {
			labels = map[string]string{"target": "canary-a", "model": "mock-model"}
		}
		if got := liveValue(final, name, labels); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("%s%v = %g at the end, want %g", name, labels, got, want)
		}
	}
	if mid != nil {
		if got := liveValue(mid, "llm_prober_time_to_first_token_seconds", sel); !(got > 0 && got < float64(res.Completed)) {
			t.Errorf("mid-run TTFT count %g, want in (0, %d)", got, res.Completed)
		}
		if got := liveValue(mid, "llm_prober_bench_requests_sent_total", nil); !(got > 0) {
			t.Errorf("mid-run sent %g", got)
		}
	}
}

// No listener unless asked; a bad address or web config fails before
// any request is sent.
func TestBenchLiveListenerErrors(t *testing.T) {
	var requests atomic.Int64
	s := mockvllm.New(mockvllm.DefaultOptions())
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			requests.Add(1)
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); ts.Close() })
	url := ts.URL
	bad := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(bad, []byte("tls_server_config: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--web.listen-address", "256.0.0.1:bad"}, "--web.listen-address 256.0.0.1:bad"},
		{[]string{"--web.listen-address", "127.0.0.1:0", "--web.config.file", bad}, "--web.config.file"},
	} {
		requests.Store(0)
		args := append([]string{"--url", url, "--num-prompts", "3", "--input-tokens", "8", "--output-tokens", "2",
			"--progress", "off", "--no-server-metrics"}, c.args...)
		code, _, log := benchCLI(t, args...)
		if code != 1 || !strings.Contains(log, c.want) {
			t.Errorf("%v: exit %d, log lacks %q:\n%s", c.args, code, c.want, log)
		}
		if n := requests.Load(); n != 0 {
			t.Errorf("%v: %d requests sent before the listener failed", c.args, n)
		}
	}
	code, _, log := benchCLI(t, "--url", url, "--num-prompts", "2", "--input-tokens", "8", "--output-tokens", "2",
		"--progress", "off", "--no-server-metrics")
	if code != 0 || strings.Contains(log, "live metrics") {
		t.Errorf("exit %d; a listener without --web.listen-address?\n%s", code, log)
	}
}
