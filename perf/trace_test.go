package perf

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/workload"
	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prober"

	"github.com/llm-prober/llm-prober/perf/internal/harness"
)

// TestMain serves the mock when harness.StartMock re-executes this test
// binary as "-serve-mock ADDR": the benchmark's server runs in a process
// of its own, as a real one would.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "-serve-mock" {
		o := mockvllm.DefaultOptions()
		o.TTFT, o.ITL = mockvllm.Dist{Mean: 20 * time.Millisecond}, mockvllm.Dist{Mean: 10 * time.Millisecond}
		o.BatchSlowdown, o.MaxRunning, o.KVBlocks, o.PrefixCacheHitRate = 0, 0, 0, 0
		o.PrefixCacheBlocks, o.BlockSize = 100000, 16
		harness.ServeMock(os.Args[2], mockvllm.New(o), func(mockvllm.Trace) any { return nil })
		return
	}
	os.Exit(m.Run())
}

// burstTrace writes a Mooncake trace of bursts: perBurst requests 1 ms
// apart (1,000 req/s), then pause of silence, bursts times; each prompt
// four 16-token blocks, the first two shared by all (a system prompt).
func burstTrace(tb testing.TB, bursts, perBurst int, pause time.Duration) string {
	var b strings.Builder
	at, id := 0.0, 100
	for range bursts {
		for range perBurst {
			fmt.Fprintf(&b, `{"timestamp": %g, "input_length": 64, "output_length": 16, "hash_ids": [1, 2, %d, %d]}`+"\n", at, id, id+1)
			at++
			id += 2
		}
		at += float64(pause.Milliseconds())
	}
	p := filepath.Join(tb.TempDir(), "bursts.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkTraceReplayBursts replays 4 bursts of 500 requests at 1,000
// req/s, 500 ms of silence between them (a generator idle then flooded:
// the hard case for timers), against the mock in another process, and
// reports the send lag behind the trace's timestamps. docs/performance.md
// §5 records it:
//
//	cd perf && go test -run '^$' -bench TraceReplayBursts -benchtime 3x .
func BenchmarkTraceReplayBursts(b *testing.B) {
	url, cmd, err := harness.StartMock()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	tr, err := workload.LoadTrace(burstTrace(b, 4, 500, 500*time.Millisecond), workload.TraceOptions{BlockSize: 16})
	if err != nil {
		b.Fatal(err)
	}
	t := &config.Target{Name: "t", URL: url, Model: "mock-model"}
	client, err := prober.NewClient(t, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	loadtest.TuneGC()
	var lags []float64
	failed, k := 0, 0
	for b.Loop() {
		run, err := loadtest.Execute(context.Background(), loadtest.Options{Target: t, API: config.APIChat, Client: client,
			Workload: workload.Reseed(tr, int64(k)), NumPrompts: tr.Len(), Rate: math.Inf(1), IgnoreEOS: true, IDPrefix: "tr"})
		if err != nil {
			b.Fatal(err)
		}
		k++
		for i := range run.Records {
			lags = append(lags, float64(run.Records[i].Lag())/1e6)
			if !run.Records[i].Success() {
				failed++
			}
		}
	}
	slices.Sort(lags)
	q := func(p float64) float64 { return lags[min(int(p*float64(len(lags))), len(lags)-1)] }
	b.ReportMetric(q(0.5), "lag-p50-ms")
	b.ReportMetric(q(0.99), "lag-p99-ms")
	b.ReportMetric(lags[len(lags)-1], "lag-max-ms")
	b.ReportMetric(float64(failed), "failed")
	b.Logf("load average %s; %d requests", harness.LoadAvg(), len(lags))
}
