package prober

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/config"
)

// aimockCLI is the third-party OpenAI-compatible mock @copilotkit/aimock,
// pinned by testdata/aimock/package-lock.json. CI installs it with
// `npm ci --prefix prober/testdata/aimock`.
const aimockCLI = "testdata/aimock/node_modules/@copilotkit/aimock/dist/cli.js"

// startAimock runs aimock on a loopback port and stops it by PID after
// the test. It skips when node or the package is not installed.
func startAimock(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the aimock tests need node >= 20.15")
	}
	if out, err := exec.Command(node, "-e", `const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a==20&&b>=15)?0:1)`).CombinedOutput(); err != nil {
		t.Skipf("node is older than 20.15 (%v %s)", err, out)
	}
	if _, err := os.Stat(aimockCLI); err != nil {
		t.Skip("@copilotkit/aimock is not installed; run: npm ci --prefix prober/testdata/aimock")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(node, aimockCLI, "-p", port, "-h", "127.0.0.1",
		"-f", filepath.Join("testdata", "aimock", "fixtures.json"), "--log-level", "warn")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	url := "http://127.0.0.1:" + port
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("aimock did not start:\n%s", logs.String())
		}
	}
	return url
}

// aimockClient sends aimock's per-request chaos header, if any.
func aimockClient(t *testing.T, header, value string) *http.Client {
	hc := commoncfg.DefaultHTTPClientConfig
	if header != "" {
		hc.HTTPHeaders = &commoncfg.Headers{Headers: map[string]commoncfg.Header{header: {Values: []string{value}}}}
	}
	return faultClient(t, hc)
}

func aimockModule(msg string) *config.Module {
	m := chatModule()
	m.Messages = []config.Message{{Role: "user", Content: msg}}
	return m
}

func TestAimock(t *testing.T) {
	url := startAimock(t)
	t.Run("role chunk before content", func(t *testing.T) {
		r := probeFault(t, aimockClient(t, "", ""), url, aimockModule("hi"), 10*time.Second, ReasonNone)
		if r.Output != "Hello from aimock, streamed in several small chunks." {
			t.Errorf("output %q", r.Output)
		}
		// The role chunk (empty content) is no token: 7 content chunks;
		// the token count comes from aimock's final usage.
		if r.ContentChunks != 7 || !r.UsageReported || r.OutputTokens < 1 || len(r.ITL) != 6 {
			t.Errorf("%d chunks, %d tokens (usage %v), %d ITL gaps", r.ContentChunks, r.OutputTokens, r.UsageReported, len(r.ITL))
		}
		if r.FinishReason != "stop" {
			t.Errorf("finish reason %q", r.FinishReason)
		}
	})
	t.Run("mid-stream truncation", func(t *testing.T) {
		probeFault(t, aimockClient(t, "", ""), url, aimockModule("truncate"), 10*time.Second, ReasonStreamBroken)
	})
	for _, c := range []struct {
		name, header string
		want         Reason
		msg          string
	}{
		{"disconnect", "X-Aimock-Chaos-Disconnect", ReasonStreamBroken, ""},
		{"429 Retry-After", "X-Aimock-Chaos-Ratelimit", ReasonRateLimited, "Retry-After 1"},
		{"500 drop", "X-Aimock-Chaos-Drop", ReasonHTTP5xx, "Chaos: request dropped"},
		// aimock's "malformed JSON" is a 200 application/json body.
		{"malformed JSON", "X-Aimock-Chaos-Malformed", ReasonNotEventStream, "application/json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := probeFault(t, aimockClient(t, c.header, "1"), url, aimockModule("hi"), 10*time.Second, c.want)
			if c.msg != "" {
				errContains(t, r, c.msg)
			}
		})
	}
}
