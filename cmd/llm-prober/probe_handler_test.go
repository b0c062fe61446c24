package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

func TestProbeEndpoint(t *testing.T) {
	dir := t.TempDir()
	url := mockServer(t)
	cfg := filepath.Join(dir, "llm-prober.yml")
	// A second module, so that target two has a choice to make.
	testutil.WriteFile(t, cfg, strings.Replace(fmt.Sprintf(configTemplate, targetYAML("one", url)+
		fmt.Sprintf("  - {name: two, url: %q, model: mock-model, modules: [chat, other]}\n", url)),
		"modules:\n", "modules:\n  other: {api: completions, prompt: hi, max_tokens: 4}\n", 1))
	p := startProber(t, "--config.file="+cfg)

	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/probe?target=one", 200, "\nprobe_success 1\n"},
		{"/probe?target=one", 200, "\nprobe_llm_output_tokens 8\n"},
		{"/probe?target=two&module=other", 200, "\nprobe_success 1\n"},
		{"/probe?target=two", 400, "choices: chat, other"},
		{"/probe?target=two&module=nope", 400, `unknown module "nope"`},
		{"/probe?target=nope", 400, `unknown target "nope"`},
		{"/probe", 400, "target parameter is missing"},
		{"/probe?url=http://127.0.0.1:1&model=m&module=chat", 403, "--probe.allow-arbitrary-targets"},
		{"/probe?target=one&debug=true", 200, "Logs for the probe:"},
		{"/probe?target=one&debug=true", 200, "\nprobe_success 1\n"},
		{"/probe?target=one&debug=true", 200, "\nTTFT:"},
	} {
		code, body := p.get(c.path)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s: HTTP %d, want %d and %q in:\n%.400s", c.path, code, c.code, c.want, body)
		}
	}
	// The answer is the probe's own small set of gauges, not the daemon's
	// long-lived families.
	_, body := p.get("/probe?target=one")
	var families []string
	for _, line := range strings.Split(body, "\n") {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			families = append(families, strings.Fields(name)[0])
		}
	}
	if want := []string{"probe_duration_seconds", "probe_llm_e2e_latency_seconds", "probe_llm_http_status_code", "probe_llm_max_inter_token_latency_seconds",
		"probe_llm_output_tokens", "probe_llm_prompt_tokens", "probe_llm_slo_met", "probe_llm_time_per_output_token_seconds",
		"probe_llm_time_to_first_token_seconds", "probe_success"}; !slices.Equal(families, want) {
		t.Errorf("/probe families %v, want %v", families, want)
	}
	// On-demand probes stay out of the long-lived metrics.
	p.waitFor(10*time.Second, func() bool {
		return p.metric(`llm_prober_probes_total{model="mock-model",module="other",target="two"}`) >= 0
	})
	if _, body := p.get("/metrics"); strings.Contains(body, "\nprobe_") {
		t.Error("/metrics has an on-demand probe gauge")
	}
}

// Arbitrary URLs need the flag, and never get a configured target's
// credentials.
func TestProbeArbitraryURL(t *testing.T) {
	var auth atomic.Value
	auth.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if !strings.HasPrefix(r.URL.Path, "/scheduled/") {
			auth.Store(r.Header.Get("Authorization") + r.Header.Get("X-Api-Key"))
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	writeSecretFiles(t, dir)
	cfg := filepath.Join(dir, "llm-prober.yml")
	testutil.WriteFile(t, cfg, fmt.Sprintf(configTemplate, fmt.Sprintf(
		"  - {name: one, url: %q, model: m, modules: [chat], http_client_config: {authorization: {credentials_file: %s/token}}}\n",
		srv.URL+"/scheduled", dir)))
	p := startProber(t, "--config.file="+cfg, "--probe.allow-arbitrary-targets")
	code, body := p.get("/probe?url=" + srv.URL + "&model=m")
	if code != 200 || !strings.Contains(body, "\nprobe_success 1\n") {
		t.Fatalf("HTTP %d:\n%s", code, body)
	}
	if got := auth.Load().(string); got != "" {
		t.Errorf("arbitrary URL probe sent credentials %q", got)
	}
	if code, _ := p.get("/probe?url=ftp://x&model=m"); code != 400 {
		t.Errorf("ftp URL: HTTP %d", code)
	}
	if code, _ := p.get("/probe?url=" + srv.URL); code != 400 {
		t.Errorf("url without model: HTTP %d", code)
	}
}

// A probe id on a histogram exemplar leads to that probe's details.
func TestExemplarResolvesInLogs(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "llm-prober.yml")
	testutil.WriteFile(t, cfg, fmt.Sprintf(configTemplate, targetYAML("one", mockServer(t))))
	p := startProber(t, "--config.file="+cfg)
	var id string
	p.waitFor(10*time.Second, func() bool {
		req, _ := http.NewRequest("GET", "http://"+p.addr+"/metrics", nil)
		req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if m := regexp.MustCompile(`time_to_first_token_seconds_bucket\{.*# \{probe_id="([0-9a-f]{16})",trace_id="0{16}([0-9a-f]{16})"\}`).FindSubmatch(b); m != nil {
			id = string(m[1])
			// The trace id is the probe id, left-padded (prober/tracectx/tracectx.go).
			return string(m[2]) == id
		}
		return false
	})
	code, body := p.get("/logs?id=" + id)
	if code != http.StatusOK || !strings.Contains(body, "Probe id:") || !strings.Contains(body, "TTFT:") {
		t.Errorf("/logs?id=%s: HTTP %d\n%s", id, code, body)
	}
	if code, _ := p.get("/logs?id=0000000000000000"); code != http.StatusNotFound {
		t.Errorf("unknown id: HTTP %d", code)
	}
}

// On-demand probes are capped, so whoever reaches the port cannot flood a
// GPU server; and an opted-in URL probe neither follows redirects nor
// takes a query.
func TestProbeLimits(t *testing.T) {
	release := make(chan struct{})
	var redirected atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch {
		case strings.HasPrefix(r.URL.Path, "/redirect/"):
			http.Redirect(w, r, "/elsewhere/v1/chat/completions", http.StatusTemporaryRedirect)
			return
		case strings.HasPrefix(r.URL.Path, "/elsewhere/"):
			redirected.Store(true)
		case strings.HasPrefix(r.URL.Path, "/slow/"):
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	defer close(release)
	cfg := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, cfg, strings.Replace(fmt.Sprintf(configTemplate, targetYAML("slow", srv.URL+"/slow")),
		"{interval: 1s, timeout: 1s}", "{interval: 1m, timeout: 10s}", 1))
	p := startProber(t, "--config.file="+cfg, "--probe.allow-arbitrary-targets", "--probe.max-concurrent=1")

	first := make(chan int, 1)
	go func() { code, _ := p.get("/probe?target=slow"); first <- code }()
	time.Sleep(300 * time.Millisecond) // let the first probe take its slot
	if code, body := p.get("/probe?target=slow"); code != http.StatusTooManyRequests {
		t.Errorf("second concurrent probe: HTTP %d %q, want 429", code, body)
	}
	release <- struct{}{}
	if code := <-first; code != 200 {
		t.Errorf("first probe: HTTP %d", code)
	}

	if code, body := p.get("/probe?url=" + srv.URL + "/redirect&model=m"); code != 200 || !strings.Contains(body, "\nprobe_success 0\n") || !strings.Contains(body, `probe_llm_failure_info{reason="redirect"} 1`) {
		t.Errorf("redirect probe: HTTP %d\n%.300s", code, body)
	}
	if redirected.Load() {
		t.Error("an arbitrary-URL probe followed a redirect")
	}
	if code, _ := p.get("/probe?url=" + srv.URL + "/x%3Fkey%3Dv&model=m"); code != 400 {
		t.Errorf("URL with a query: HTTP %d, want 400", code)
	}
}
