package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"

	"github.com/llm-prober/llm-prober/mockvllm"
)

func TestBenchSubcommandsDispatch(t *testing.T) {
	// A dispatch gone wrong could start the daemon: bound it.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "bench", "--knee-rate", "4", "--daily-requests", "1000000").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "replicas") {
		t.Errorf("bench alone: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, binary, "bench", "compare", filepath.Join(t.TempDir(), "a.json"), "b.json")
	out, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "llm-prober bench compare:") {
		t.Errorf("compare of missing files: %v\n%s", err, out)
	}
	out, err = exec.CommandContext(ctx, binary, "bench", "compare", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--max-regression") {
		t.Errorf("compare --help: %v\n%s", err, out)
	}
}

// The binary dispatches `bench` alone to a run (the default subcommand)
// and `bench compare` to the comparison, with its exit code.

func TestBenchHelpListsExitCodes(t *testing.T) {
	out, err := exec.Command(binary, "bench", "--help").CombinedOutput()
	if err != nil {
		t.Fatal(err, string(out))
	}
	flat := strings.Join(strings.Fields(string(out)), " ")
	for _, want := range []string{"3 a --fail-on condition held", "4 no request succeeded, or more than 5% of a single run's requests failed", "--idle-timeout=2m"} {
		if !strings.Contains(flat, want) {
			t.Errorf("bench --help lacks %q:\n%s", want, out)
		}
	}
}

// SIGINT and SIGTERM stop a run against a hung server: the requests in
// flight are cancelled and counted, the partial report is printed and
// written, and the exit code is 1.
func TestBenchCLISignalStopsRun(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		var arrived atomic.Int64
		url := mocktarget.Serve(t, mockvllm.DefaultOptions(), mocktarget.Hang(&arrived))
		out := filepath.Join(t.TempDir(), "r.json")
		cmd := exec.Command(binary, "bench", "--url", url, "--request-rate", "inf", "--num-prompts", "5", "--input-tokens", "8",
			"--output-tokens", "2", "--progress", "off", "--output-json", out)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		for arrived.Load() < 5 {
			time.Sleep(10 * time.Millisecond)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute): // a generous guard, not a timing assertion
			_ = cmd.Process.Kill()
			t.Fatalf("%v: bench still running\n%s", sig, stderr.String())
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: %v\n%s", sig, err, stderr.String())
		}
		if !strings.Contains(stdout.String(), "Cancelled requests (run cut them off):   5") {
			t.Errorf("%v: report:\n%s", sig, stdout.String())
		}
		var res map[string]any
		raw, err := os.ReadFile(out)
		if err == nil {
			err = json.Unmarshal(raw, &res)
		}
		if err != nil || res["llm_prober_cancelled"] != 5.0 || len(res["requests"].([]any)) != 5 {
			t.Errorf("%v: JSON %v, cancelled %v", sig, err, res["llm_prober_cancelled"])
		}
	}
}

// benchCLI runs `llm-prober bench args...` as the binary, as a user does.
func benchCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var out, log bytes.Buffer
	cmd := exec.CommandContext(ctx, binary, append([]string{"bench"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &log
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), log.String()
}
