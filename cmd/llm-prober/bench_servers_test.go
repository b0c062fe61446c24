package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// The mock's timing in these sweeps: no jitter, no batch slowdown, so a
// request of 16 prompt and 6 output tokens runs 20 ms + 5 steps × 10 ms
// whatever runs beside it, and the capacity is the running limit over
// that (mockvllm.Options.SaturationRate).
const mockTiming = "--ttft 20ms --itl 10ms --ttft-jitter 0s --itl-jitter 0s --batch-slowdown 0s --model m"

func mockOptions(maxRunning, kvBlocks int) mockvllm.Options {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL, o.BatchSlowdown = mockvllm.Dist{Mean: 20 * time.Millisecond}, mockvllm.Dist{Mean: 10 * time.Millisecond}, 0
	o.MaxRunning, o.KVBlocks = maxRunning, kvBlocks
	return o
}

// sweepFlags are a short rate sweep: rates far below, between and far
// above the configurations' capacities, 30 requests each.
var sweepFlags = []string{"--rates", "5,30,3200", "--num-prompts", "30", "--min-samples", "0", "--sweep-refine", "0",
	"--goodput", "ttft:400", "--knee-goodput", "90", "--input-tokens", "16", "--output-tokens", "6", "--progress", "off"}

type sweepRow struct {
	Key, Status, Command, Error string
	ExitStatus                  string  `json:"exit_status"`
	LogTail                     string  `json:"log_tail"`
	KVBlocks                    int     `json:"kv_blocks"`
	MaxConcurrency              int     `json:"max_concurrency"`
	KneeOffered                 float64 `json:"knee_request_rate"`
	Curve                       []any
}

func readRows(t *testing.T, path string) []sweepRow {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Rows []sweepRow }
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	return res.Rows
}

// Each configuration of the built-in mock, started by bench as the
// server command, has the knee its running limit predicts: the knees rise
// with --max-running and fall with too few --kv-blocks, each below the
// mock's saturation rate, and a server that exits at start is a failed
// row with its exit status and log; every started server is stopped.
func TestBenchServerSweepKneeRisesWithCapacity(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "configs")
	os.WriteFile(list, []byte("# name: parameters\none-slot: max_running=1 kv_blocks=4096\nfew-blocks: max_running=4 kv_blocks=2\n"+
		"four-slots: max_running=4 kv_blocks=4096\nbroken: max_running=x kv_blocks=4096\n"), 0o600)
	out, html := filepath.Join(dir, "sweep.json"), filepath.Join(dir, "sweep.html")
	code, stdout, log := benchCLI(t, append([]string{"--server-cmd", binary + " mock-vllm --listen-address 127.0.0.1:{port} --max-running {max_running} --kv-blocks {kv_blocks} " + mockTiming,
		"--server-config", list, "--output-json", out, "--report", html, "--peak-rps", "100", "--headroom", "1"}, sweepFlags...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	rows := readRows(t, out)
	if len(rows) != 4 {
		t.Fatalf("%d rows\n%s", len(rows), stdout)
	}
	sat := func(m, kv int) float64 { return mockOptions(m, kv).SaturationRate(16, 6) }
	one, few, four, broken := rows[0], rows[1], rows[2], rows[3]
	for i, c := range []struct {
		row  sweepRow
		sat  float64
		conc int
	}{{one, sat(1, 4096), 1}, {few, sat(4, 2), 1}, {four, sat(4, 4096), 4}} {
		if c.row.Status != "ok" || c.row.KneeOffered <= 0 || c.row.KneeOffered > c.sat || c.row.MaxConcurrency != c.conc || len(c.row.Curve) < 3 {
			t.Errorf("row %d: knee %.2f req/s (the mock saturates at %.2f), max concurrency %d (want %d), status %s",
				i+1, c.row.KneeOffered, c.sat, c.row.MaxConcurrency, c.conc, c.row.Status)
		}
	}
	// Four running slots hold past what one saturates at.
	if !(four.KneeOffered > sat(1, 4096)) || !(four.KneeOffered > one.KneeOffered) || !(four.KneeOffered > few.KneeOffered) || four.KVBlocks != 4096 || few.KVBlocks != 2 {
		t.Errorf("knees %.2f, %.2f, %.2f req/s; KV blocks %d, %d", one.KneeOffered, few.KneeOffered, four.KneeOffered, few.KVBlocks, four.KVBlocks)
	}
	if broken.Status != "failed" || broken.ExitStatus == "" || !strings.Contains(broken.LogTail, `"x"`) {
		t.Errorf("the broken configuration: %+v", broken)
	}
	for _, want := range []string{"Configuration sweep", "Best configuration: four-slots: the fewest GPUs for the plan's demand",
		"broken: the server exited before it was ready (exit status", "  | "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	page, _ := os.ReadFile(html)
	if n := strings.Count(string(page), "<polyline"); n != 6 || !strings.Contains(string(page), "Knee per configuration") || !strings.Contains(string(page), "Best configuration: four-slots") {
		t.Errorf("the HTML report has %d curves (want 3 configurations × 2 panels)", n)
	}
	// Every server bench started is gone.
	for _, r := range rows {
		if m := regexp.MustCompile(`127\.0\.0\.1:(\d+)`).FindStringSubmatch(r.Command); m != nil {
			if resp, err := http.Get("http://127.0.0.1:" + m[1] + "/health"); err == nil {
				resp.Body.Close()
				t.Errorf("%s: its server still answers", r.Key)
			}
		}
	}
}

// One server is killed during its sweep (as an OOM kill would), the
// next runs to its knee, and an interrupt during the third stops its
// server and keeps the finished rows; --resume then runs only the third.
func TestBenchServerSweepCrashInterruptResume(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep.json")
	script := fmt.Sprintf("echo $$ > '%s'/{seqs}-{port}.pid; exec '%s' mock-vllm --listen-address 127.0.0.1:{port} --max-running {seqs} %s", dir, binary, mockTiming)
	args := append([]string{"bench", "--server-cmd", script, "--server-shell", "--server-param", "seqs=1,2,3", "--output-json", out,
		"--server-stop-grace", "10s"}, sweepFlags...)
	for i := range args {
		if args[i] == "--rates" {
			args[i+1] = "10,3200" // a shorter sweep
		}
	}
	cmd := exec.Command(binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// server waits for configuration n's server and returns its pid and port.
	server := func(n int) (int, string) {
		for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			m, _ := filepath.Glob(filepath.Join(dir, strconv.Itoa(n)+"-*.pid"))
			if len(m) == 1 {
				b, _ := os.ReadFile(m[0])
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					return pid, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m[0]), strconv.Itoa(n)+"-"), ".pid")
				}
			}
		}
		t.Fatalf("no server %d\n%s", n, stderr.String())
		return 0, ""
	}
	// served is how many requests the server on port has finished.
	served := func(port string) int {
		resp, err := http.Get("http://127.0.0.1:" + port + "/metrics")
		if err != nil {
			return 0
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		n := 0
		for _, m := range regexp.MustCompile(`(?m)^vllm:request_success_total\{[^}]*\} (\d+)`).FindAllStringSubmatch(string(b), -1) {
			v, _ := strconv.Atoi(m[1])
			n += v
		}
		return n
	}
	pid1, port1 := server(1)
	for served(port1) < 5 {
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid1, syscall.SIGKILL)
	pid3, port3 := server(3)
	for served(port3) < 1 {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // a guard against a hang, not a timing assertion
		t.Fatalf("bench still running after SIGINT\n%s", stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted: the started server was stopped") {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if syscall.Kill(pid3, 0) == nil {
		t.Errorf("the interrupted configuration's server (pid %d) outlived bench", pid3)
	}
	rows := readRows(t, out)
	if len(rows) != 2 || rows[0].Status != "failed" || rows[0].ExitStatus != "signal: killed" || !strings.Contains(rows[0].Error, "exited during its sweep") ||
		rows[1].Status != "ok" {
		t.Fatalf("rows after the interrupt: %+v", rows)
	}
	_ = port3
	code, stdout2, log := benchCLI(t, append(args[1:], "--resume")...)
	if code != 0 || strings.Count(log, "in the result already (--resume), skipped") != 2 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout2, log)
	}
	if rows = readRows(t, out); len(rows) != 3 || rows[2].Key != "seqs=3" || rows[2].Status != "ok" || rows[0].Status != "failed" {
		t.Errorf("rows after --resume: %+v", rows)
	}
}

// --dry-run prints every command and starts nothing; bad flags exit 2
// before any server starts.
func TestBenchServerSweepDryRunAndBadFlags(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	cmd := "touch " + marker + " --seqs {seqs} --port {port}"
	code, stdout, log := benchCLI(t, "--server-cmd", cmd, "--server-param", "seqs=1,2", "--sweep", "--goodput", "ttft:100", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "1/2 seqs=1\n  touch "+marker+" --seqs 1 --port {port}") || !strings.Contains(stdout, "2/2 seqs=2") {
		t.Errorf("dry run: exit %d\n%s\n%s", code, stdout, log)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("--dry-run ran the command")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--server-cmd", cmd, "--server-param", "seqs=1", "--goodput", "ttft:100"}, "add --sweep (or --rates)"},
		{[]string{"--server-cmd", cmd, "--server-param", "seqs=1", "--server-param", "other=2", "--sweep", "--goodput", "ttft:100"}, "parameter other is not used in --server-cmd"},
		{[]string{"--server-cmd", cmd + " {nope}", "--server-param", "seqs=1", "--sweep", "--goodput", "ttft:100"}, "uses {nope}"},
		{[]string{"--server-cmd", cmd + " && rm x", "--server-param", "seqs=1", "--sweep", "--goodput", "ttft:100"}, "needs a shell"},
		{[]string{"--server-cmd", cmd, "--server-param", "seqs=1", "--sweep", "--goodput", "ttft:100", "--resume"}, "--resume reads the rows"},
		{[]string{"--server-cmd", cmd, "--server-param", "seqs=1", "--sweep", "--goodput", "ttft:100", "--server-config", "/nonexistent"}, "--server-config"},
		{[]string{"--server-cmd", cmd, "--server-param", "seqs=1", "--sweep", "--goodput", "bogus"}, "bogus"},
		{[]string{"--server-apply-cmd", cmd, "--server-param", "seqs=1", "--sweep", "--goodput", "ttft:100"}, "needs --url"},
	} {
		code, _, log := benchCLI(t, c.args...)
		if code != 2 || !strings.Contains(log, c.want) {
			t.Errorf("%q: exit %d, want 2 and %q:\n%s", c.args, code, c.want, log)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a bad flag still ran the command")
	}
}
