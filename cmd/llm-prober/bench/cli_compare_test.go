package bench

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// compareCLI parses args as `llm-prober bench compare` and runs it.
func compareCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	app := kingpin.New("llm-prober", "")
	b := NewCommand(app)
	cmd, err := app.Parse(append([]string{"bench", "compare"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	if cmd != b.compare.cmd.FullCommand() {
		t.Fatalf("parsed as %q", cmd)
	}
	var out, log bytes.Buffer
	code, err := b.compare.main(&out, &log)
	if err != nil {
		log.WriteString("error: " + err.Error())
	}
	return code, out.String(), log.String()
}

// slowMock serves a mock whose TTFT is ttft, with little jitter.
func slowMock(t *testing.T, ttft time.Duration) string {
	t.Helper()
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: ttft, Jitter: time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: time.Millisecond}
	o.BatchSlowdown, o.PrefixCacheHitRate = 0, 0
	s := mockvllm.New(o)
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	return ts.URL
}

// Two real runs, the second against a server whose first token comes
// 150 ms later: compare exits 3 on --max-regression p50_ttft_ms:10%
// (40 requests bound no p99: its interval's upper end is unbounded),
// 0 on the base against itself, and 2 on a bad key, a missing file and
// different workloads (unless --force).

func TestBenchCompareCLI(t *testing.T) {
	dir := t.TempDir()
	runTo := func(url, file string, args ...string) string {
		path := filepath.Join(dir, file)
		args = append([]string{"--url", url, "--concurrency", "4", "--num-prompts", "40", "--input-tokens", "8",
			"--goodput", "ttft:100", "--progress", "off", "--no-server-metrics", "--output-json", path}, args...)
		if code, stdout, log := benchCLI(t, args...); code != 0 {
			t.Fatalf("bench: exit %d\n%s%s", code, stdout, log)
		}
		return path
	}
	base := runTo(slowMock(t, 10*time.Millisecond), "base.json", "--output-tokens", "4")
	slow := runTo(slowMock(t, 160*time.Millisecond), "slow.json", "--output-tokens", "4", "--seed", "5")
	other := runTo(slowMock(t, 10*time.Millisecond), "other.json", "--output-tokens", "6")

	cmpJSON := filepath.Join(dir, "cmp.json")
	code, stdout, log := compareCLI(t, "--max-regression", "p50_ttft_ms:10%,goodput:1", "--output-json", cmpJSON, base, slow)
	if code != ExitFailOn || !strings.Contains(stdout, "REGRESSION beyond 10%") || !strings.Contains(log, "significant regression") {
		t.Errorf("slower TTFT: exit %d\n%s%s", code, stdout, log)
	}
	var res struct {
		Regressions []string
		Metrics     []struct {
			Key         string
			Significant bool
		}
	}
	raw, err := os.ReadFile(cmpJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Regressions) != 2 || len(res.Metrics) != 24 {
		t.Errorf("comparison JSON (%v): %s", err, raw)
	}

	if code, stdout, log := compareCLI(t, "--max-regression", "p50_ttft_ms:10%,goodput:1", base, base); code != 0 {
		t.Errorf("base against itself: exit %d\n%s%s", code, stdout, log)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-regression", "p99_tft:10%", base, slow}, "valid keys: mean_ttft_ms"},
		{[]string{"--alpha", "5", base, slow}, "--alpha"},
		{[]string{base, filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{base, other}, "llm_prober_workload: synthetic: 8 input tokens, 4 output tokens"},
	} {
		if code, _, log := compareCLI(t, c.args...); code != 2 || !strings.Contains(log, c.want) {
			t.Errorf("%q: exit %d, %s; want 2 and %q", c.args, code, log, c.want)
		}
	}
	code, stdout, _ = compareCLI(t, "--force", base, other)
	if code != 0 || !strings.Contains(stdout, "WARNING: the runs' workloads differ") {
		t.Errorf("--force: exit %d\n%s", code, stdout)
	}
}

// bench compare --report writes the comparison as bench --report's page:
// the verdict, the table and the two runs' CDFs (it had no HTML form;
// issue 31 item 9); a --report into no directory is exit 2 before reading.
func TestBenchCompareReport(t *testing.T) {
	dir := t.TempDir()
	runTo := func(url, file string) string {
		path := filepath.Join(dir, file)
		if code, stdout, log := benchCLI(t, "--url", url, "--concurrency", "4", "--num-prompts", "40", "--input-tokens", "8", "--output-tokens", "4",
			"--goodput", "ttft:100", "--progress", "off", "--no-server-metrics", "--output-json", path); code != 0 {
			t.Fatalf("bench: exit %d\n%s%s", code, stdout, log)
		}
		return path
	}
	base := runTo(slowMock(t, 10*time.Millisecond), "base.json")
	slow := runTo(slowMock(t, 160*time.Millisecond), "slow.json")
	page := filepath.Join(dir, "cmp.html")
	code, stdout, log := compareCLI(t, "--max-regression", "p50_ttft_ms:10%", "--report", page, base, slow)
	if code != ExitFailOn || !strings.Contains(log, "wrote "+page) {
		t.Fatalf("exit %d\n%s%s", code, stdout, log)
	}
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(raw)
	for _, want := range []string{"<h2>Comparison</h2>", "regression: p50_ttft_ms", "p99_ttft_ms (ms)", "TTFT CDF, base and new",
		"E2EL CDF, base and new", "base (40 requests)", "REGRESSION beyond 10%"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(html, "<svg"); n != 4 || strings.Contains(html, "<script") {
		t.Errorf("%d charts (want 4 CDFs), or a script", n)
	}
	if code, _, log := compareCLI(t, "--report", filepath.Join(dir, "nope", "x.html"), base, slow); code != 2 || !strings.Contains(log, "no such directory") {
		t.Errorf("--report into no directory: exit %d, %s", code, log)
	}
}
