package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// Secret values, each from a different source. None may appear in any
// output of the prober.
const (
	secretBearer   = "SECRET-bearer-7f3a"
	secretPassword = "SECRET-password-91c2"
	secretHeader   = "SECRET-header-file-5d0e"
	secretEnv      = "SECRET-env-c4b8"
	secretOTLPURL  = "SECRET-otlp-url-2e6f" // user info and query of tracing.otlp_endpoint
	secretOTLPKey  = "SECRET-otlp-header-8b1d"
	secretOTLPEnv  = "SECRET-otel-env-header-3a9c" // OTEL_EXPORTER_OTLP_HEADERS
)

var allSecrets = []string{secretBearer, secretPassword, secretHeader, secretEnv, secretOTLPURL, secretOTLPKey, secretOTLPEnv}

// authServer streams a good answer only when every credential arrived,
// so the test knows the secrets were really used. It never echoes them.
func authServer(t *testing.T, seen *atomic.Int64) string {
	good := "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		user, pass, basic := r.BasicAuth()
		bearer := r.Header.Get("Authorization") == "Bearer "+secretBearer &&
			r.Header.Get("X-Api-Key") == secretHeader && r.Header.Get("X-Env-Key") == secretEnv
		if !bearer && !(basic && user == "prober" && pass == secretPassword) {
			http.Error(w, `{"error":{"message":"bad credentials"}}`, http.StatusUnauthorized)
			return
		}
		seen.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, good)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeSecretFiles(t *testing.T, dir string) {
	t.Helper()
	for name, v := range map[string]string{"token": secretBearer, "password": secretPassword, "header": secretHeader} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

const secretsConfig = `
global: {interval: 500ms, timeout: 400ms}
tracing:
  otlp_endpoint: http://tenant:%[4]s@%[3]s/v1/traces?api_key=%[4]s
  headers: {X-Otlp-Key: "${LLM_PROBER_SECURITY_TEST_OTLP}"}
modules:
  chat:
    messages: [{role: user, content: hi}]
    max_tokens: 8
targets:
  - name: bearer
    url: %[1]q
    model: m
    modules: [chat]
    http_client_config:
      authorization: {credentials_file: %[2]s/token}
      http_headers:
        X-Api-Key: {files: [%[2]s/header]}
        X-Env-Key: {secrets: ["${LLM_PROBER_SECURITY_TEST_ENV}"]}
  - name: basic
    url: %[1]q
    model: m
    modules: [chat]
    http_client_config:
      basic_auth: {username: prober, password_file: %[2]s/password}
  - name: rejected
    url: %[1]q
    model: m
    modules: [chat]
    http_client_config:
      authorization: {credentials_file: %[2]s/password}
  - name: refused
    url: http://%[3]s
    model: m
    modules: [chat]
    http_client_config:
      authorization: {credentials_file: %[2]s/token}
`

func TestSecretsNeverShown(t *testing.T) {
	t.Setenv("LLM_PROBER_SECURITY_TEST_ENV", secretEnv)
	t.Setenv("LLM_PROBER_SECURITY_TEST_OTLP", secretOTLPKey)
	// The GenAI metrics push from the environment, to a closed port: its
	// failure is logged, its header never.
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://"+testutil.FreeAddr(t)+"/v1/metrics")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "X-Otel-Key="+secretOTLPEnv)
	dir := t.TempDir()
	writeSecretFiles(t, dir)
	var seen atomic.Int64
	url := authServer(t, &seen)
	cfg := filepath.Join(dir, "llm-prober.yml")
	testutil.WriteFile(t, cfg, fmt.Sprintf(secretsConfig, url, dir, testutil.FreeAddr(t), secretOTLPURL))
	p := startProber(t, "--config.file="+cfg)

	for _, target := range []string{"bearer", "basic", "rejected", "refused"} {
		p.waitFor(20*time.Second, func() bool {
			return p.metric(`llm_prober_probes_total{model="m",module="chat",target="`+target+`"}`) >= 1
		})
	}
	if seen.Load() == 0 {
		t.Fatal("no probe authenticated: the secrets were not used, so the test proves nothing")
	}
	pages := map[string]string{}
	for _, path := range []string{"/", "/config", "/metrics", "/probe?target=nope", "/probe?target=bearer&module=nope"} {
		_, pages[path] = p.get(path)
	}
	for _, target := range []string{"bearer", "basic", "rejected", "refused"} {
		for _, q := range []string{"", "&debug=true"} {
			path := "/probe?target=" + target + q
			_, pages[path] = p.get(path)
		}
	}
	// Every probe in the history, scheduled and on demand.
	ids := regexp.MustCompile(`/logs\?id=([0-9a-f]{16})`).FindAllStringSubmatch(pages["/"], -1)
	_, landing := p.get("/")
	ids = append(ids, regexp.MustCompile(`/logs\?id=([0-9a-f]{16})`).FindAllStringSubmatch(landing, -1)...)
	if len(ids) < 4 {
		t.Fatalf("only %d probe ids on the landing page", len(ids))
	}
	for _, m := range ids {
		code, body := p.get("/logs?id=" + m[1])
		if code != http.StatusOK {
			t.Errorf("/logs?id=%s: %d", m[1], code)
		}
		pages["/logs?id="+m[1]] = body
	}
	if !strings.Contains(pages["/probe?target=bearer&debug=true"], "<secret>") {
		t.Errorf("debug output does not show the redacted credentials:\n%s", pages["/probe?target=bearer&debug=true"])
	}
	if !strings.Contains(pages["/probe?target=bearer"], "\nprobe_success 1\n") {
		t.Errorf("on-demand probe with secrets failed:\n%s", pages["/probe?target=bearer"])
	}
	stopProc(t, p)
	pages["process logs"] = p.Log()
	if !strings.Contains(pages["process logs"], "pushing GenAI metrics") {
		t.Error("the push from OTEL_EXPORTER_OTLP_METRICS_ENDPOINT did not start: the environment's header proves nothing")
	}
	for where, text := range pages {
		for _, s := range allSecrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows secret %q", where, s)
			}
		}
	}
}

// stopProc ends p with SIGTERM so that its logs can be read; the test's
// cleanup still finds the exit status.
func stopProc(t *testing.T, p *proc) {
	t.Helper()
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("prober did not stop on SIGTERM")
	}
}
