package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// These tests run the real binary: flags, signals, exit codes and the HTTP
// endpoints are what users touch.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "llm-prober-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "llm-prober")
	args := []string{"build", "-o", binary}
	if raceEnabled {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building llm-prober: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running llm-prober process and its HTTP address.
type proc struct {
	*testutil.Proc
	t    *testing.T
	addr string
}

func startProber(t *testing.T, args ...string) *proc {
	t.Helper()
	addr := testutil.FreeAddr(t)
	p := &proc{t: t, addr: addr, Proc: testutil.Start(t, "llm-prober", binary,
		append([]string{"--web.listen-address=" + addr, "--log.level=debug"}, args...)...)}
	p.waitFor(10*time.Second, func() bool { return p.status("GET", "/-/ready") == 200 })
	return p
}

func (p *proc) get(path string) (int, string) {
	return p.do("GET", path)
}

func (p *proc) status(method, path string) int {
	code, _ := p.do(method, path)
	return code
}

func (p *proc) do(method, path string) (int, string) {
	req, _ := http.NewRequest(method, "http://"+p.addr+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (p *proc) waitFor(timeout time.Duration, cond func() bool) {
	p.t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	p.t.Fatalf("condition not met within %v", timeout)
}

// metric returns the value of the first sample whose line starts with
// prefix (name plus optional labels), or -1.
func (p *proc) metric(prefix string) float64 {
	_, body := p.get("/metrics")
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, prefix) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

func mockServer(t *testing.T) string {
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: 5 * time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: time.Millisecond}
	mock := mockvllm.New(o)
	srv := httptest.NewServer(mock)
	t.Cleanup(func() { mock.Close(); srv.Close() })
	return srv.URL
}

// chatConfig is the start of the tests' configurations: a fast global
// section and one module, chat.
const chatConfig = `
global: {interval: 1s, timeout: 1s}
modules:
  chat:
    messages: [{role: user, content: hi}]
    max_tokens: 8
    ignore_eos: true
`

const configTemplate = chatConfig + `targets:
%s`

func targetYAML(name, url string) string {
	return fmt.Sprintf("  - {name: %s, url: %q, model: mock-model, modules: [chat]}\n", name, url)
}

func TestConfigCheck(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yml"), filepath.Join(dir, "bad.yml")
	testutil.WriteFile(t, good, fmt.Sprintf(configTemplate, targetYAML("a", "http://127.0.0.1:1")))
	testutil.WriteFile(t, bad, strings.Replace(fmt.Sprintf(configTemplate, targetYAML("a", "http://127.0.0.1:1")), "max_tokens", "max_tokenz", 1))

	out, err := exec.Command(binary, "--config.check", "--config.file="+good).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Errorf("good config: %v %s", err, out)
	}
	out, err = exec.Command(binary, "--config.check", "--config.file="+bad).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("bad config: want exit 1, got %v", err)
	}
	if want := regexp.MustCompile(`bad\.yml:\d+: modules\.chat.*max_tokenz`); !want.Match(out) {
		t.Errorf("bad config message %q lacks file, line and field", out)
	}
}

// A bad reload leaves the running config in place; a good one applies and
// drops removed targets' series; GET is refused; SIGHUP also reloads.
func TestReloadLifecycle(t *testing.T) {
	url := mockServer(t)
	file := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, file, fmt.Sprintf(configTemplate, targetYAML("a", url)+targetYAML("b", url)))
	p := startProber(t, "--config.file="+file)

	probesA := `llm_prober_probes_total{model="mock-model",module="chat",target="a"}`
	p.waitFor(10*time.Second, func() bool { return p.metric(probesA) >= 2 })
	if code, _ := p.get("/-/healthy"); code != 200 {
		t.Errorf("/-/healthy = %d", code)
	}
	if code := p.status("GET", "/-/reload"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /-/reload = %d, want 405", code)
	}

	testutil.WriteFile(t, file, "global: {interval: nonsense}\n")
	code, body := p.do("POST", "/-/reload")
	if code != 500 || !strings.Contains(body, "llm-prober.yml:1") {
		t.Errorf("bad reload: %d %q", code, body)
	}
	if v := p.metric("llm_prober_config_last_reload_successful "); v != 0 {
		t.Errorf("reload_successful = %v after a bad reload", v)
	}
	before := p.metric(probesA)
	p.waitFor(5*time.Second, func() bool { return p.metric(probesA) > before })

	testutil.WriteFile(t, file, fmt.Sprintf(configTemplate, targetYAML("a", url)))
	if err := p.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.waitFor(5*time.Second, func() bool { return p.metric("llm_prober_config_last_reload_successful ") == 1 })
	if v := p.metric(`llm_prober_probes_total{model="mock-model",module="chat",target="b"}`); v != -1 {
		t.Errorf("removed target b still exported (%v)", v)
	}
	if after := p.metric(probesA); after < before {
		t.Errorf("target a's counter went from %v to %v across a reload", before, after)
	}
}

// SIGTERM while probes hang on a stalled server ends the process promptly
// and cleanly.
func TestGracefulShutdown(t *testing.T) {
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer stalled.Close()
	file := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, file, strings.Replace(fmt.Sprintf(configTemplate, targetYAML("a", stalled.URL)),
		"{interval: 1s, timeout: 1s}", "{interval: 2s, timeout: 2s}", 1))
	p := startProber(t, "--config.file="+file, "--shutdown.timeout=2s")
	p.waitFor(10*time.Second, func() bool { return p.metric("llm_prober_probes_in_flight ") == 1 })
	start := time.Now()
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.Done():
		if err := p.Err(); err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
		if el := time.Since(start); el > 4*time.Second {
			t.Errorf("shutdown took %v with --shutdown.timeout=2s", el)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("prober did not exit within 10s of SIGTERM")
	}
}

// The README's first command: --demo shows real histograms and goodput
// within 30 seconds.
func TestDemo(t *testing.T) {
	p := startProber(t, "--demo")
	ttft := `llm_prober_time_to_first_token_seconds_count{model="mock-model",module="chat_short",target="mock-vllm"}`
	p.waitFor(30*time.Second, func() bool { return p.metric(ttft) > 0 })
	// Server metrics come from the first scrape, at a random phase within
	// the 5 s interval: perhaps a little after the first probe.
	for _, name := range []string{
		`llm_prober_time_per_output_token_seconds_count{`, `llm_prober_inter_token_latency_seconds_count{`,
		`llm_prober_e2e_latency_seconds_count{`, `llm_prober_probes_good_total{`,
		`llm_prober_server_kv_cache_usage_ratio{`, `llm_prober_target_info{`, `llm_prober_build_info{`,
	} {
		p.waitFor(15*time.Second, func() bool { return p.metric(name) >= 0 })
	}
	if code, body := p.get("/"); code != 200 || !strings.Contains(body, "mock-vllm") {
		t.Errorf("landing page: %d, target not listed", code)
	}
	if code, body := p.get("/config"); code != 200 || !strings.Contains(body, "chat_short") {
		t.Errorf("/config: %d %q", code, body)
	}
	if code := p.status("GET", "/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("/debug/pprof/ without --web.enable-pprof: %d, want 404", code)
	}
	if os.Getenv("PROMTOOL") != "" {
		_, body := p.get("/metrics")
		var own strings.Builder
		for _, line := range strings.SplitAfter(body, "\n") {
			if strings.Contains(line, "llm_prober_") {
				own.WriteString(line)
			}
		}
		cmd := exec.Command(os.Getenv("PROMTOOL"), "check", "metrics")
		cmd.Stdin = strings.NewReader(own.String())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
}

// Profiles are served only when asked for.
func TestPprofOptIn(t *testing.T) {
	p := startProber(t, "--demo", "--web.enable-pprof")
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/cmdline", "/debug/pprof/heap?debug=1"} {
		if code := p.status("GET", path); code != http.StatusOK {
			t.Errorf("%s: %d, want 200", path, code)
		}
	}
}
