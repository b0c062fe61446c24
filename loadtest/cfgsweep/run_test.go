package cfgsweep

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// fakeSweep is a sweep whose knee is at knee req/s (the rates around it
// fail), measured without load: the loop's logic, not the engine's.
func fakeSweep(ctx context.Context, knee float64) (*sweep.Sweep, error) {
	return sweep.RunSweep(ctx, sweep.SweepConfig{Rates: []float64{knee / 2, knee, knee * 2}, KneeGoodput: 99,
		Run: func(_ context.Context, kind string, rate float64) (*sweep.Point, error) {
			r := &summary.Report{Completed: 100, RequestThroughput: rate, OutputThroughput: 10 * rate, GoodputPercent: 100}
			if rate > knee {
				r.GoodputPercent = 50
			}
			return &sweep.Point{Kind: kind, Rate: rate, Report: r, Verdict: "queueing"}, nil
		}})
}

func configs(modes ...string) []Configuration {
	var cs []Configuration
	for i, m := range modes {
		cs = append(cs, Configuration{Params: []Param{{"mode", m}, {"seqs", string(rune('1' + i))}}})
	}
	return cs
}

// A server that exits at start and one killed mid-sweep are failed rows
// with their exit status and log tail, the loop going on; a server that
// comes up has its capacity read from its /metrics and its knee measured.
func TestRunFailedRows(t *testing.T) {
	var log bytes.Buffer
	saved := 0
	o := Options{Configs: configs("serve", "exit", "serve", "serve"), Server: helper(t), URL: "http://127.0.0.1:{port}",
		ReadyTimeout: time.Minute, StopGrace: 5 * time.Second, Client: &http.Client{}, TokensPerRequest: 48,
		KneeGoodput: 99, Plan: Plan{PeakRPS: 50, PeakToAverage: 1, Headroom: 1, GPUsPerReplica: 2}, Log: &log,
		Saved: func(*Result) error { saved++; return nil }, LogFiles: filepath.Join(t.TempDir(), "configs")}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	o.Measure = func(ctx context.Context, c Configuration, url string) (*sweep.Sweep, error) {
		switch c.Params[1].Value {
		case "3": // the server dies under load: its sweep ends with it
			http.Get(url + "/die")
			<-ctx.Done()
			return nil, ctx.Err()
		case "4":
			return fakeSweep(ctx, 20)
		}
		return fakeSweep(ctx, 10)
	}
	res, err := Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || saved != 4 {
		t.Fatalf("%d rows, %d saves: %+v", len(res.Rows), saved, res.Rows)
	}
	ok, exit, died, best := res.Rows[0], res.Rows[1], res.Rows[2], res.Rows[3]
	if ok.Status != StatusOK || ok.KneeOffered != 10 || ok.KVBlocks != 777 || ok.BlockSize != 16 || ok.MaxConcurrency != 777/3 || ok.GPUs != 2*5 {
		t.Errorf("the good row: %+v", ok)
	}
	if exit.Status != StatusFailed || exit.ExitStatus != "exit status 3" || !strings.Contains(exit.LogTail, "--max-num-seqs") ||
		!strings.Contains(exit.Error, "exited before it was ready") {
		t.Errorf("the server that exits at start: %+v", exit)
	}
	if died.Status != StatusFailed || died.ExitStatus != "signal: killed" || !strings.Contains(died.LogTail, "CUDA out of memory") ||
		!strings.Contains(died.Error, "exited during its sweep") || died.KneeRate != 0 {
		t.Errorf("the server killed mid-sweep: %+v", died)
	}
	// Each server's whole log is in its file beside the results too.
	for i, want := range []string{"serving on", "error: bad flag \x1b[31m--max-num-seqs", "CUDA out of memory", "serving on"} {
		name := fmt.Sprintf("configs.server-%d.log", i+1)
		b, err := os.ReadFile(filepath.Join(filepath.Dir(o.LogFiles), name))
		if res.Rows[i].LogFile != name || err != nil || !strings.Contains(string(b), want) {
			t.Errorf("row %d: log file %q (%v): %q, want %q in %s", i+1, res.Rows[i].LogFile, err, b, want, name)
		}
	}
	if res.Best == nil || res.Best.Key != best.Key || !strings.Contains(res.Best.Why, "fewest GPUs for the plan's demand: 6") ||
		!strings.Contains(res.Best.Why, "next: mode=serve seqs=1 at 10.00 req/s, 10 GPUs") {
		t.Errorf("best %+v", res.Best)
	}
}

// An interrupt stops the started server and keeps the finished rows; the
// interrupted configuration is no row, and --resume runs only it.
func TestRunInterruptAndResume(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var log bytes.Buffer
	var url2 string
	o := Options{Configs: configs("serve", "serve"), Server: helper(t), URL: "http://127.0.0.1:{port}", ReadyTimeout: time.Minute,
		StopGrace: 5 * time.Second, Client: &http.Client{}, KneeGoodput: 99, Log: &log,
		Measure: func(ctx context.Context, c Configuration, url string) (*sweep.Sweep, error) {
			if c.Params[1].Value == "2" {
				url2 = url
				cancel() // as SIGINT would, mid-sweep
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return fakeSweep(ctx, 10)
		}}
	res, err := Run(ctx, o)
	if err == nil || len(res.Rows) != 1 || res.Rows[0].Status != StatusOK {
		t.Fatalf("interrupted: %v, %+v", err, res.Rows)
	}
	// Run returned after the server was stopped and reaped.
	if _, err := http.Get(url2 + "/health"); err == nil {
		t.Error("the interrupted configuration's server still answers")
	}
	ran := 0
	o.Previous = res
	o.Measure = func(ctx context.Context, c Configuration, url string) (*sweep.Sweep, error) {
		ran++
		return fakeSweep(ctx, 30)
	}
	res, err = Run(t.Context(), o)
	if err != nil || ran != 1 || len(res.Rows) != 2 || res.Rows[1].KneeOffered != 30 || !strings.Contains(log.String(), "in the result already (--resume), skipped") {
		t.Errorf("resumed: %v, ran %d, %+v\n%s", err, ran, res.Rows, log.String())
	}
}

// --resume refuses a file written for another command: its rows would be
// another server's.
func TestResumeOtherCommand(t *testing.T) {
	tp, _ := ParseTemplate("--server-cmd", "serve --seqs {seqs}", false)
	o := Options{Configs: []Configuration{{Params: []Param{{"seqs", "1"}}}}, Server: tp,
		Previous: &Result{Command: "serve --other {seqs}", Rows: []Row{{Key: "seqs=1", Status: StatusOK}}}}
	if err := o.Check(); err == nil || !strings.Contains(err.Error(), "--resume: the file was written for another command") {
		t.Errorf("%v", err)
	}
	o.Previous.Command = tp.Raw
	if err := o.Check(); err != nil {
		t.Error(err)
	}
}
