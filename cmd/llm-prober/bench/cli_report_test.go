package bench

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"

	"github.com/llm-prober/llm-prober/mockvllm"
)

func readReport(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	if strings.Contains(page, "<script") || strings.Contains(page, "NaN") || !strings.HasSuffix(page, "</html>\n") {
		t.Errorf("%s: a script, NaN or cut short", path)
	}
	return page
}

// --report against the mock: a run with the server's series drawn, a
// sweep with its curve and plan, repeated runs; and a bad path refused
// before anything runs.
func TestBenchCLIReport(t *testing.T) {
	url := mocktarget.URL(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	args := []string{"--url", url, "--input-tokens", "8", "--output-tokens", "4", "--progress", "off", "--goodput", "ttft:2000", "--report", path}
	code, stdout, log := benchCLI(t, append(args, "--request-rate", "200", "--num-prompts", "30", "--metrics-interval", "20ms")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, log)
	}
	page := readReport(t, path)
	for _, want := range []string{"TTFT CDF", "SLO 2000 ms", "30 of 30 measured requests drawn", "Server KV-cache usage", " scrapes drawn", "Serving Benchmark Result"} {
		if !strings.Contains(page, want) {
			t.Errorf("run report lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg"); n != 13 || !strings.Contains(log, "wrote "+path) {
		t.Errorf("%d charts; log:\n%s", n, log)
	}

	// A server that saturates: the sweep bends, and has a knee and a plan.
	sargs := []string{"--url", mocktarget.Saturating(t), "--input-tokens", "8", "--output-tokens", "4", "--progress", "off", "--goodput", "ttft:600", "--report", path}
	code, stdout, log = benchCLI(t, append(sargs, "--rates", "10,500", "--num-prompts", "15", "--min-samples", "15", "--peak-rps", "30", "--no-server-metrics")...)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s%s", code, stdout, log)
	}
	page = readReport(t, path)
	for _, want := range []string{"Knee:", "(knee)", "Capacity plan", "p99 TTFT 95% CI", "rate 10.00 req/s", "Knee rate 95% interval: 10.00–", "no server metrics: --no-server-metrics"} {
		if !strings.Contains(page, want) {
			t.Errorf("sweep report lacks %q", want)
		}
	}

	code, stdout, log = benchCLI(t, append(args, "--num-runs", "2", "--num-prompts", "5", "--no-server-metrics", "--seed", "0")...)
	if page = readReport(t, path); code != 0 || !strings.Contains(page, "Repeated runs") || !strings.Contains(page, "Run 2 of 2 (seed 1)") {
		t.Errorf("--num-runs: exit %d\n%s%s", code, stdout, log)
	}

	if code, _, log := benchCLI(t, "--url", url, "--report", filepath.Join(dir, "missing", "r.html")); code != 2 || !strings.Contains(log, "--report") {
		t.Errorf("--report in a missing directory: exit %d, %s", code, log)
	}
}

// A server's error body reaches the page as text, never as markup.
func TestBenchCLIReportEscapesServerText(t *testing.T) {
	url := mocktarget.Serve(t, mockvllm.DefaultOptions(), func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `<script>alert("pwned")</script>`, http.StatusInternalServerError)
	})
	path := filepath.Join(t.TempDir(), "r.html")
	code, _, log := benchCLI(t, "--url", url, "--num-prompts", "3", "--input-tokens", "8", "--output-tokens", "4", "--progress", "off",
		"--no-server-metrics", "--report", path)
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d (every request failed)\n%s", code, ExitFailed, log)
	}
	page := readReport(t, path)
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;") {
		t.Errorf("the server's error is not on the page, escaped")
	}
}
