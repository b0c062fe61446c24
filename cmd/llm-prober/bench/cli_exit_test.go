package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/capacity/kneefile"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// Issue 21's repro, scaled: requests queue behind --max-concurrency 1,
// so from their planned send time most miss e2el:400 though each takes
// ~100 ms once sent; --fail-on 'goodput<99' must fail the run.
func TestBenchCLIClientQueueingFailsGoodput(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL, o.BatchSlowdown = mockvllm.Dist{Mean: 100 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}, 0
	url := mocktarget.Serve(t, o, nil)
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "40", "--burstiness", "50", "--max-concurrency", "1",
		"--num-prompts", "8", "--input-tokens", "8", "--output-tokens", "2", "--goodput", "e2el:400", "--fail-on", "goodput<99",
		"--progress", "off", "--metrics-interval", "50ms", "--output-json", out)
	if code != ExitFailOn || !strings.Contains(log, "fail-on goodput<99 holds") {
		t.Errorf("exit %d, want %d\n%s\n%s", code, ExitFailOn, stdout, log)
	}
	for _, want := range []string{"SLOs, --fail-on, knee, verdict use:      from the schedule", "waited for a --max-concurrency slot",
		"Verdict:                                 client_concurrency_cap"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	var res map[string]any
	raw, err := os.ReadFile(out)
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	if err != nil || res["llm_prober_latency_basis"] != "schedule" || res["llm_prober_goodput_percent"] != res["llm_prober_goodput_schedule_percent"] {
		t.Fatalf("JSON: %v basis %v goodput %v", err, res["llm_prober_latency_basis"], res["llm_prober_goodput_percent"])
	}
	// Each request says whether it queued; its latency from the schedule
	// recomputes from the file: latency + start_s − planned_s.
	waited := 0
	for _, r := range res["requests"].([]any) {
		if r.(map[string]any)["slot_waited"] == true {
			waited++
		}
	}
	if waited != int(res["llm_prober_slot_waited_requests"].(float64)) || waited == 0 {
		t.Errorf("%d requests marked slot_waited, the aggregate says %v", waited, res["llm_prober_slot_waited_requests"])
	}
}

// Without --fail-on, a run in which no request succeeds, or too many
// fail, exits 4 and its verdict names the failures first.
func TestBenchCLIExitsWhenRequestsFail(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want string
	}{{1, "no request succeeded"}, {0.5, "of 30 requests failed"}} {
		o := mockvllm.DefaultOptions()
		o.Faults = mockvllm.FaultRates{mockvllm.FaultError500: c.rate}
		url := mocktarget.Serve(t, o, nil)
		code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "inf", "--num-prompts", "30", "--input-tokens", "8",
			"--output-tokens", "2", "--progress", "off", "--metrics-interval", "50ms")
		if code != ExitFailed || !strings.Contains(log, c.want) || !strings.Contains(stdout, "Verdict:                                 requests_failing") {
			t.Errorf("%g failing: exit %d, want %d\n%s\n%s", c.rate, code, ExitFailed, stdout, log)
		}
	}
}

// A sweep against a server that fails every request finds no knee and
// exits 4, not 0.
func TestBenchCLISweepWithoutKneeFails(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.Faults = mockvllm.FaultRates{mockvllm.FaultError500: 1}
	url := mocktarget.Serve(t, o, nil)
	code, stdout, log := benchCLI(t, "--url", url, "--rates", "50,100", "--num-prompts", "10", "--min-samples", "10",
		"--input-tokens", "8", "--output-tokens", "2", "--goodput", "ttft:1000", "--progress", "off", "--no-server-metrics")
	if code != ExitFailed || !strings.Contains(log, "no rate met the knee's SLO attainment") {
		t.Errorf("exit %d, want %d\n%s\n%s", code, ExitFailed, stdout, log)
	}
}

// bench --help lists the exit codes and the idle timeout.
// An interrupted sweep still prints its table and writes the points run
// so far, the interrupted one with its requests counted as cancelled.
func TestBenchCLISweepInterruptWritesPoints(t *testing.T) {
	var arrived atomic.Int64
	url := mocktarget.Serve(t, mockvllm.DefaultOptions(), mocktarget.Hang(&arrived))
	out := filepath.Join(t.TempDir(), "s.json")
	app := kingpin.New("llm-prober", "")
	b := NewCommand(app)
	if _, err := app.Parse([]string{"bench", "--url", url, "--rates", "200,400", "--num-prompts", "4", "--min-samples", "4", "--input-tokens", "8",
		"--output-tokens", "2", "--goodput", "ttft:1000", "--progress", "off", "--no-server-metrics", "--output-json", out,
		"--report", out + ".html"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for arrived.Load() < 4 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	var stdout, log bytes.Buffer
	code, err := b.main(ctx, &stdout, &log)
	if code != 1 || err == nil || !strings.Contains(stdout.String(), "Rate sweep") {
		t.Errorf("exit %d, %v\n%s\n%s", code, err, stdout.String(), log.String())
	}
	var sj struct {
		Status string           `json:"llm_prober_knee_status"`
		Points []map[string]any `json:"points"`
	}
	raw, err := os.ReadFile(out)
	if err == nil {
		err = json.Unmarshal(raw, &sj)
	}
	if err != nil || len(sj.Points) != 1 || sj.Points[0]["llm_prober_cancelled"] != 4.0 || sj.Status != "interrupted" {
		t.Errorf("sweep JSON: %v, status %q, %+v", err, sj.Status, sj.Points)
	}
	if _, err := kneefile.Read(out); err == nil || !strings.Contains(err.Error(), "the sweep was interrupted before it found the knee") {
		t.Errorf("knee file of an interrupted sweep: %v", err)
	}
	if page := readReport(t, out+".html"); !strings.Contains(page, "0 succeeded, 0 failed, 4 cancelled") {
		t.Error("the interrupted sweep's report lacks its point's run")
	}
}

// An interrupt while the usage calibration waits (a server without
// /tokenize, hung): bench says the run never started and writes no
// report and no result file, rather than an empty report.
func TestBenchCLIInterruptDuringCalibration(t *testing.T) {
	var arrived atomic.Int64
	o := mockvllm.DefaultOptions()
	o.NoTokenize = true
	url := mocktarget.Serve(t, o, mocktarget.Hang(&arrived))
	out := filepath.Join(t.TempDir(), "r.json")
	app := kingpin.New("llm-prober", "")
	b := NewCommand(app)
	if _, err := app.Parse([]string{"bench", "--url", url, "--num-prompts", "4", "--input-tokens", "8", "--output-tokens", "2",
		"--progress", "off", "--no-server-metrics", "--output-json", out}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for arrived.Load() < 1 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	var stdout, log bytes.Buffer
	code, err := b.main(ctx, &stdout, &log)
	if code != ExitError || err == nil || !strings.Contains(err.Error(), "interrupted before the run started: no request was sent") {
		t.Errorf("exit %d, %v", code, err)
	}
	if strings.Contains(stdout.String(), "Benchmark Result") {
		t.Errorf("a report of a run that never started:\n%s", stdout.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a result file of a run that never started: %v", err)
	}
}
