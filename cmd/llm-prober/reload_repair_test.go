package main

import (
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

func sseServer(tls bool) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
	})
	if tls {
		return httptest.NewTLSServer(h)
	}
	return httptest.NewServer(h)
}

// A target whose CA file is missing at start fails its probes; once the
// file exists, a reload of the very same config file repairs it.
func TestReloadRepairsClientOfUnchangedConfig(t *testing.T) {
	srv := sseServer(true)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ca, file := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "llm-prober.yml")
	testutil.WriteFile(t, file, fmt.Sprintf(configTemplate, fmt.Sprintf(
		"  - {name: a, url: %q, model: mock-model, modules: [chat], http_client_config: {tls_config: {ca_file: %q}}}\n", srv.URL, ca)))
	p := startProber(t, "--config.file="+file)
	failures := `llm_prober_probe_failures_total{model="mock-model",module="chat",reason="other",target="a"}`
	p.waitFor(10*time.Second, func() bool { return p.metric(failures) >= 1 })

	testutil.WriteFile(t, ca, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	if code, body := p.do("POST", "/-/reload"); code != 200 {
		t.Fatalf("reload: %d %s", code, body)
	}
	p.waitFor(10*time.Second, func() bool {
		return p.metric(`llm_prober_last_probe_success{model="mock-model",module="chat",target="a"}`) == 1
	})
}

// SIGHUP during start-up is a reload request, never the default action
// that would kill the process.
func TestSIGHUPDuringStartup(t *testing.T) {
	url := sseServer(false)
	t.Cleanup(url.Close)
	var targets strings.Builder
	for i := range 300 { // a config that takes a while to load and apply
		targets.WriteString(targetYAML(fmt.Sprintf("t%d", i), url.URL))
	}
	file := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, file, strings.Replace(fmt.Sprintf(configTemplate, targets.String()), "interval: 1s", "interval: 1h", 1))
	addr := testutil.FreeAddr(t)
	logs, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	cmd := exec.Command(binary, "--web.listen-address="+addr, "--config.file="+file)
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.Process.Signal(syscall.Signal(0)) == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	// Signals from the first line the process logs (the Go runtime runs
	// by then) until it serves: all of its start-up.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Millisecond) {
		select {
		case err := <-exited:
			t.Fatalf("the prober exited during start-up on SIGHUP: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("not ready within 60s")
		}
		if st, err := logs.Stat(); err != nil || st.Size() == 0 {
			continue
		}
		_ = cmd.Process.Signal(syscall.SIGHUP)
		if resp, err := http.Get("http://" + addr + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
	}
}
