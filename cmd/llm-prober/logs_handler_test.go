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
	"time"

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
		// The decoding timeout's open gap is a worst gap (max_itl) of at
		// least the wait since its last token; the queued probe has none.
		worst := map[string]string{"queued": `(?m)^Worst gap \(max_itl\):\s+—$`, "decoding": `(?m)^Worst gap \(max_itl\):\s+at least [0-9.]+m?s \(the gap open`}[c.target]
		if !regexp.MustCompile(worst).MatchString(logs) {
			t.Errorf("%s: /logs worst gap does not match %s:\n%s", c.target, worst, logs)
		}
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

// /logs is reached from the status page and links back; it shows
// durations rounded for reading, and says what is true of arrival times:
// a probe answered 404 over HTTP/1.1 had no stream to time.
func TestLogsPage(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	cfg := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, cfg, fmt.Sprintf(configTemplate, targetYAML("good", mockServer(t))+targetYAML("missing", notFound.URL)))
	p := startProber(t, "--config.file="+cfg)
	p.waitFor(15*time.Second, func() bool {
		return p.metric(`llm_prober_probes_total{model="mock-model",module="chat",target="good"}`) >= 1 &&
			p.metric(`llm_prober_probes_total{model="mock-model",module="chat",target="missing"}`) >= 1
	})
	_, page := p.get("/")
	ids := map[string]string{}
	for _, m := range regexp.MustCompile(`<b>([a-z]+)</b>(?s:.*?)<a href="/logs\?id=([0-9a-f]{16})">`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = m[2]
	}
	if ids["good"] == "" || ids["missing"] == "" {
		t.Fatalf("the status page does not link both targets' last probes to /logs (%v):\n%s", ids, page)
	}
	_, good := p.get("/logs?id=" + ids["good"])
	_, missing := p.get("/logs?id=" + ids["missing"])
	for name, body := range map[string]string{"good": good, "missing": missing} {
		if !strings.Contains(body, `<a href="/">Status page</a>`) {
			t.Errorf("%s: /logs does not link back to the status page:\n%s", name, body)
		}
		if m := regexp.MustCompile(`\d\.\d{4,}(s|ms|µs)\b`).FindString(body); m != "" {
			t.Errorf("%s: /logs shows %s, not rounded:\n%s", name, m, body)
		}
	}
	if !regexp.MustCompile(`(?m)^TTFT:\s+\d+(\.\d)?(ms|µs)$`).MatchString(good) {
		t.Errorf("good: no rounded TTFT:\n%s", good)
	}
	if !regexp.MustCompile(`(?m)^Arrival times:\s+—$`).MatchString(missing) || !regexp.MustCompile(`(?m)^HTTP status:\s+404$`).MatchString(missing) {
		t.Errorf("missing: a 404 has no arrival times to speak of:\n%s", missing)
	}
}
