package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// The exporter's own endpoints behind TLS and basic auth, end to end
// through --web.config.file on the real binary.
func TestWebConfigTLSAndBasicAuth(t *testing.T) {
	const user, pass = "admin", "SECRET-web-pass-2b7d"
	dir := t.TempDir()
	pki := testutil.NewPKI(t, "127.0.0.1")
	certFile, keyFile, pool := pki.CertFile, pki.KeyFile, pki.Pool
	hash, err := bcrypt.GenerateFromPassword([]byte(pass), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webCfg := filepath.Join(dir, "web.yml")
	testutil.WriteFile(t, webCfg, fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  %s: %s\n",
		certFile, keyFile, user, hash))
	cfg := filepath.Join(dir, "llm-prober.yml")
	testutil.WriteFile(t, cfg, fmt.Sprintf(configTemplate, targetYAML("mock", mockServer(t))))

	addr := testutil.FreeAddr(t)
	cmd := exec.Command(binary, "--web.listen-address="+addr, "--web.config.file="+webCfg, "--config.file="+cfg)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })

	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	get := func(scheme, path, u, p string) (int, string) {
		req, _ := http.NewRequest("GET", scheme+"://"+addr+path, nil)
		if u != "" {
			req.SetBasicAuth(u, p)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		if code, _ := get("https", "/-/ready", user, pass); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready over TLS with basic auth; logs:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, c := range []struct {
		name, scheme, path, user, pass string
		want                           int
	}{
		{"no credentials", "https", "/metrics", "", "", http.StatusUnauthorized},
		{"wrong password", "https", "/metrics", user, "wrong", http.StatusUnauthorized},
		{"metrics", "https", "/metrics", user, pass, http.StatusOK},
		{"probe", "https", "/probe?target=mock", user, pass, http.StatusOK},
		{"probe without credentials", "https", "/probe?target=mock", "", "", http.StatusUnauthorized},
		{"plain HTTP", "http", "/metrics", user, pass, http.StatusBadRequest},
	} {
		if code, body := get(c.scheme, c.path, c.user, c.pass); code != c.want {
			t.Errorf("%s: HTTP %d, want %d: %.200s", c.name, code, c.want, body)
		}
	}
	_ = cmd.Process.Signal(os.Interrupt)
	<-done
	done <- nil
	if strings.Contains(logs.String(), pass) {
		t.Errorf("the web password appears in the logs")
	}
}

// Target certificates are verified unless a target opts out.
func TestTargetTLSVerifiedByDefault(t *testing.T) {
	good := "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, good)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "llm-prober.yml")
	// A generous timeout: a TLS failure must not be mistaken for a timeout
	// on a loaded machine running the race detector.
	testutil.WriteFile(t, cfg, strings.Replace(fmt.Sprintf(configTemplate, targetYAML("strict", srv.URL)+
		fmt.Sprintf("  - {name: skip, url: %q, model: mock-model, modules: [chat], http_client_config: {tls_config: {insecure_skip_verify: true}}}\n", srv.URL)),
		"{interval: 1s, timeout: 1s}", "{interval: 10s, timeout: 5s}", 1))
	p := startProber(t, "--config.file="+cfg)
	_, strict := p.get("/probe?target=strict")
	if !strings.Contains(strict, "\nprobe_success 0\n") || !strings.Contains(strict, `probe_llm_failure_info{reason="tls"} 1`) {
		t.Errorf("self-signed target was not rejected as tls:\n%s", strict)
	}
	if _, skip := p.get("/probe?target=skip"); !strings.Contains(skip, "\nprobe_success 1\n") {
		t.Errorf("insecure_skip_verify target failed:\n%s", skip)
	}
}
