package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// stallServer sends response headers, then tokens tokens, then nothing
// until the client gives up.
func stallServer(t *testing.T, tokens int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for range tokens {
			_, _ = io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n")
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A timed-out probe says in /logs which phase its time ran out in, shows
// "—" for what it never measured, and /probe leaves those gauges out
// while keeping the TTFT a decoding timeout did measure.
func TestTimeoutsInLogs(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, cfg, strings.Replace(fmt.Sprintf(configTemplate,
		targetYAML("queued", stallServer(t, 0))+targetYAML("decoding", stallServer(t, 2))),
		"{interval: 1s, timeout: 1s}", "{interval: 1m, timeout: 1s}", 1))
	p := startProber(t, "--config.file="+cfg)
	idLine := regexp.MustCompile(`Probe id:\s+([0-9a-f]{16})`)
	for _, c := range []struct {
		target, reason, phase string
		ttft, notMeasured     []string
	}{
		{"queued", "timeout_first_token", "before the first token: queued on the server, or a slow prefill",
			nil, []string{"TTFT", "TPOT", "E2E latency", "ITL", "Output tokens", "Prompt tokens", "Finish reason"}},
		{"decoding", "timeout_decode", "during decoding, after the first token",
			[]string{"probe_llm_time_to_first_token_seconds "}, []string{"TPOT", "E2E latency", "Output tokens", "Finish reason"}},
	} {
		_, debug := p.get("/probe?debug=true&target=" + c.target)
		if !strings.Contains(debug, fmt.Sprintf(`probe_llm_failure_info{reason=%q} 1`, c.reason)) {
			t.Errorf("%s: debug output lacks reason %s:\n%s", c.target, c.reason, debug)
		}
		for _, absent := range []string{"probe_llm_e2e_latency_seconds", "probe_llm_output_tokens", "probe_llm_time_per_output_token_seconds"} {
			if strings.Contains(debug, absent) {
				t.Errorf("%s: /probe reports %s, never measured", c.target, absent)
			}
		}
		for _, want := range c.ttft {
			if !strings.Contains(debug, want) {
				t.Errorf("%s: /probe lacks the measured %s", c.target, want)
			}
		}
		if len(c.ttft) == 0 && strings.Contains(debug, "probe_llm_time_to_first_token_seconds") {
			t.Errorf("%s: /probe reports a TTFT it never measured", c.target)
		}
		m := idLine.FindStringSubmatch(debug)
		if m == nil {
			t.Fatalf("%s: no probe id in the debug output:\n%s", c.target, debug)
		}
		code, logs := p.get("/logs?id=" + m[1])
		if code != http.StatusOK || !regexp.MustCompile(`(?m)^Timed out:\s+`+regexp.QuoteMeta(c.phase)+`$`).MatchString(logs) {
			t.Errorf("%s: /logs (HTTP %d) does not say %q:\n%s", c.target, code, c.phase, logs)
		}
		for _, field := range c.notMeasured {
			if !regexp.MustCompile(`(?m)^` + field + `:\s+—$`).MatchString(logs) {
				t.Errorf("%s: /logs does not show %s as not measured:\n%s", c.target, field, logs)
			}
		}
		if !regexp.MustCompile(`(?m)^HTTP status:\s+200$`).MatchString(logs) {
			t.Errorf("%s: /logs lacks the measured HTTP status:\n%s", c.target, logs)
		}
	}
}
