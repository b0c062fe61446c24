package cfgsweep

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/sweep"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// Apply mode: the command runs per configuration before the readiness
// wait on --url; one that fails is a failed row with its log; an
// interrupt during it stops it and ends the loop.
func TestRunApply(t *testing.T) {
	mock := mockvllm.New(mockvllm.DefaultOptions())
	defer mock.Close()
	srv := httptest.NewServer(mock)
	defer srv.Close()
	dir := t.TempDir()
	tp, err := ParseTemplate("--server-apply-cmd", "echo applied {seqs} > "+dir+"/{seqs}; test {seqs} != 2 || { echo rollout failed; exit 1; }; test {seqs} != 3 || sleep 1000", true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var measured []string
	o := Options{Configs: []Configuration{{Params: []Param{{"seqs", "1"}}}, {Params: []Param{{"seqs", "2"}}}, {Params: []Param{{"seqs", "3"}}}},
		Apply: tp, URL: srv.URL, ReadyTimeout: time.Minute, Client: srv.Client(), KneeGoodput: 99, Log: &strings.Builder{},
		Measure: func(ctx context.Context, c Configuration, url string) (*sweep.Sweep, error) {
			measured = append(measured, c.Key())
			return fakeSweep(ctx, 10)
		}}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	go func() { // the third configuration's command hangs: interrupt it
		for {
			if _, err := os.Stat(filepath.Join(dir, "3")); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	res, err := Run(ctx, o)
	if err == nil || len(res.Rows) != 2 || strings.Join(measured, ",") != "seqs=1" || res.Mode != "apply" {
		t.Fatalf("%v, measured %v, rows %+v", err, measured, res.Rows)
	}
	if r := res.Rows[1]; r.Status != StatusFailed || !strings.Contains(r.Error, "--server-apply-cmd: exit status 1") || !strings.Contains(r.LogTail, "rollout failed") {
		t.Errorf("failed apply: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "1")); string(b) != "applied 1\n" {
		t.Errorf("apply command wrote %q", b)
	}
}
