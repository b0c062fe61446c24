package testutil

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// PrometheusBins are the pinned Prometheus and promtool ($PROMETHEUS,
// $PROMTOOL, which scripts/test.sh builds from tools/go.mod). Without
// LLM_PROBER_E2E=1 and both set, the test is skipped.
func PrometheusBins(t testing.TB) (prometheus, promtool string) {
	t.Helper()
	prometheus, promtool = os.Getenv("PROMETHEUS"), os.Getenv("PROMTOOL")
	if os.Getenv("LLM_PROBER_E2E") != "1" || prometheus == "" || promtool == "" {
		t.Skip("needs a real Prometheus: set LLM_PROBER_E2E=1, PROMETHEUS and PROMTOOL (scripts/test.sh does)")
	}
	return prometheus, promtool
}

// PromOptions adjust a Prometheus started by BackfilledPrometheus.
type PromOptions struct {
	// WebConfig, if set, is the body of --web.config.file (e.g.
	// basic_auth_users: the server then requires those credentials);
	// User and Password are what the readiness wait sends.
	WebConfig      string
	User, Password string
	// Config is prometheus.yml (default: no scrape jobs).
	Config string
}

// Prom is a Prometheus a test started.
type Prom struct {
	URL  string // http://127.0.0.1:port, no trailing slash
	Proc *Proc
}

// BackfilledPrometheus writes om (OpenMetrics text with timestamps, ending
// in "# EOF"; see Traffic.OpenMetrics) into a fresh TSDB with promtool tsdb
// create-blocks-from openmetrics, starts the pinned Prometheus on it on
// 127.0.0.1 (retention 30 d, so days-old data stays), waits until it is
// ready and returns it; it is stopped by PID when the test ends. An empty
// om starts an empty Prometheus.
func BackfilledPrometheus(t testing.TB, om []byte, o PromOptions) *Prom {
	t.Helper()
	prom, promtool := PrometheusBins(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if len(om) > 0 {
		in := filepath.Join(dir, "backfill.om")
		if err := os.WriteFile(in, om, 0o600); err != nil {
			t.Fatal(err)
		}
		// Blocks of up to 3 days: promtool reads the input once per block.
		cmd := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", "--quiet", "--max-block-duration=72h", in, data)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
		}
	}
	cfg := o.Config
	if cfg == "" {
		cfg = "global: {scrape_interval: 15s}\n"
	}
	WriteFile(t, filepath.Join(dir, "prometheus.yml"), cfg)
	addr := FreeAddr(t)
	args := []string{"--config.file=" + filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path=" + data,
		"--storage.tsdb.retention.time=30d", "--web.listen-address=" + addr, "--log.level=warn"}
	if o.WebConfig != "" {
		WriteFile(t, filepath.Join(dir, "web.yml"), o.WebConfig)
		args = append(args, "--web.config.file="+filepath.Join(dir, "web.yml"))
	}
	p := Start(t, "prometheus", prom, args...)
	u := "http://" + addr
	waitReady(t, p, u+"/-/ready", o.User, o.Password)
	return &Prom{URL: u, Proc: p}
}

// waitReady polls u, with basic auth if user is set, until 200 OK.
func waitReady(t testing.TB, p *Proc, u, user, password string) {
	t.Helper()
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if p.Exited() {
			t.Fatalf("prometheus exited:\n%s", p.Log())
		}
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if user != "" {
			req.SetBasicAuth(user, password)
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("prometheus not ready at %s after 90s", u)
}
