package merge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/prober"
)

// writeShards writes n shard files of one run of total requests (each
// with gaps inter-token gaps) into dir, as bench --shard would.
func writeShards(tb testing.TB, dir string, n, total, gaps int) []string {
	tb.Helper()
	start := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	spec := loadtest.Spec{API: "chat", Rate: "1000", Burstiness: 1, NumPrompts: total, Seed: 1, IgnoreEOS: true, Workload: "random 1024→128"}
	var paths []string
	for i := range n {
		jo, err := resultfile.NewJSONOut()
		if err != nil {
			tb.Fatal(err)
		}
		itl := make([]time.Duration, gaps)
		for k := i; k < total; k += n {
			at := int64(k) * 1_000_000 // 1,000 req/s
			for g := range itl {
				itl[g] = time.Duration(20_000_000 + (k*7+g*13)%5_000_000)
			}
			rec := loadtest.Record{Index: int64(k), Planned: at, Start: at + 50_000, End: at + 900_000_000,
				TTFT: int64(100_000_000 + k%50_000_000), TPOT: 25_000_000, E2EL: 800_000_000,
				PlannedPrompt: 1024, PromptTokens: 1024, PlannedOutput: int32(gaps + 1), OutputTokens: int32(gaps + 1)}
			jo.Add(&rec, &prober.Result{ITL: itl})
		}
		m := Manifest{Index: i, Count: n, StartAt: start, Clock: shard.Clock{Source: "injected"}, Spec: spec,
			Decide: Decide{Goodput: "ttft:500", Percentiles: "50,90,99"}}
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := jo.Write(p, []summary.KV{{Key: "completed", Value: total / n}, {Key: Key, Value: m}}); err != nil {
			tb.Fatal(err)
		}
		jo.Close()
		paths = append(paths, p)
	}
	return paths
}

var benchFiles struct {
	once  sync.Once
	dir   string
	paths []string
}

// TestMain removes BenchmarkMerge1M's files, kept across its runs.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchFiles.dir != "" {
		os.RemoveAll(benchFiles.dir)
	}
	os.Exit(code)
}

// BenchmarkMerge1M merges four shards of a million requests (8 gaps
// each, 451 MB of files) and summarises the union: bench merge's cost
// (docs/performance.md).
func BenchmarkMerge1M(b *testing.B) {
	benchFiles.once.Do(func() {
		dir, err := os.MkdirTemp("", "merge-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchFiles.dir, benchFiles.paths = dir, writeShards(b, dir, 4, 1_000_000, 8)
	})
	slo, _ := summary.ParseSLO("ttft:500")
	b.ReportAllocs()
	for b.Loop() {
		res, err := Read(context.Background(), benchFiles.paths, Options{})
		if err != nil {
			b.Fatal(err)
		}
		rep := summary.Summarize(res.Run, slo, []float64{50, 90, 99})
		if rep.Completed != 1_000_000 {
			b.Fatalf("%d completed", rep.Completed)
		}
	}
}

// A merge of shard files gives back the union exactly, every request
// once; without a shard it names the one missing.
func TestReadUnion(t *testing.T) {
	paths := writeShards(t, t.TempDir(), 3, 300, 2)
	res, err := Read(t.Context(), paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Run.Records) != 300 || len(res.Shards) != 3 || !res.Comparable {
		t.Fatalf("%d records, %d shards, comparable %v", len(res.Run.Records), len(res.Shards), res.Comparable)
	}
	seen := map[int64]bool{}
	for _, r := range res.Run.Records {
		seen[r.Index] = true
	}
	if len(seen) != 300 {
		t.Errorf("%d distinct requests", len(seen))
	}
	raw, err := os.ReadFile(paths[2])
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(other, bytes.Replace(raw, []byte(`"sizing":""`), []byte(`"sizing":"calibrated"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(t.Context(), []string{paths[0], paths[1], other}, Options{}); !errors.As(err, new(BadInputError)) || !strings.Contains(fmt.Sprint(err), `sizing: "" vs "calibrated"`) {
		t.Errorf("prompts sized otherwise: %v", err)
	}
	defer func(n int) { MaxRequests = n }(MaxRequests)
	MaxRequests = 250
	if _, err := Read(t.Context(), paths, Options{}); !errors.As(err, new(BadInputError)) || !strings.Contains(fmt.Sprint(err), "more than 250 requests in all") {
		t.Errorf("past the cap: %v", err)
	}
	MaxRequests = 300
	if _, err := Read(t.Context(), paths[:2], Options{}); err == nil || fmt.Sprint(err) != "shard 2 of 3 missing: a run's union needs every shard (a failed pod's part was not sent, or its file not collected)" {
		t.Errorf("missing: %v", err)
	}
}
