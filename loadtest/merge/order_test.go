package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/prober"
)

// endShards writes one shard file per list of ends (ms), the records in
// that order (a shard lists them as they completed, not always by End:
// two finishing at once take its lock in either order); request k of
// shard i has index k*len(ends)+i.
func endShards(t *testing.T, ends [][]int64) []string {
	t.Helper()
	n := len(ends)
	spec := loadtest.Spec{API: "chat", Rate: "1000", Burstiness: 1, NumPrompts: len(ends[0]) * n, Seed: 1, IgnoreEOS: true, Workload: "random 16→4"}
	var paths []string
	for i, es := range ends {
		jo, err := resultfile.NewJSONOut()
		if err != nil {
			t.Fatal(err)
		}
		for k, e := range es {
			rec := loadtest.Record{Index: int64(k*n + i), End: e * 1e6, E2EL: 1e6, TTFT: 1e5,
				PlannedPrompt: 16, PromptTokens: 16, PlannedOutput: 4, OutputTokens: 4}
			jo.Add(&rec, &prober.Result{ITL: []time.Duration{time.Millisecond}})
		}
		m := Manifest{Index: i, Count: n, StartAt: time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC), Clock: shard.Clock{Source: "injected"},
			Spec: spec, Decide: Decide{Goodput: "ttft:500", Percentiles: "50,99"}}
		p := filepath.Join(t.TempDir(), fmt.Sprintf("shard-%d.json", i))
		if err := jo.Write(p, []summary.KV{{Key: "completed", Value: len(es)}, {Key: Key, Value: m}}); err != nil {
			t.Fatal(err)
		}
		jo.Close()
		paths = append(paths, p)
	}
	return paths
}

// The union lists the requests as one process would: interleaved by
// when each ended, each shard's own order kept (shard 1 lists 50 before
// 40), ties to the lower shard; the Run in memory and the file Replay
// writes in the same order, whatever order the files are named in.
func TestUnionInCompletionOrder(t *testing.T) {
	ends := [][]int64{{10, 30, 30, 60}, {20, 50, 40, 70}, {5, 30, 80, 90}}
	paths := endShards(t, ends)
	want := []int64{2, 0, 1, 3, 6, 5, 4, 7, 9, 10, 8, 11}
	m, err := Read(t.Context(), []string{paths[2], paths[0], paths[1]}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var inRun, replayed []int64
	for _, r := range m.Run.Records {
		inRun = append(inRun, r.Index)
	}
	err = Replay(t.Context(), m, func(rec *loadtest.Record, itl []time.Duration, _ string) {
		replayed = append(replayed, rec.Index)
		if len(itl) != 1 || itl[0] != time.Millisecond {
			t.Errorf("request %d: gaps %v", rec.Index, itl)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(inRun, want) || !slices.Equal(replayed, want) {
		t.Errorf("order: the Run %v, replayed %v, want %v", inRun, replayed, want)
	}

	// A file spoiled after Read: Replay names it and ends its readers.
	if err := os.WriteFile(paths[1], []byte(`{"requests": [{"index": "x"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := Replay(t.Context(), m, func(*loadtest.Record, []time.Duration, string) { n++ }); err == nil {
		t.Errorf("a spoiled file replayed (%d records)", n)
	}
}

// BenchmarkReplay200k reads four shards of 200,000 requests in all (8
// gaps each) in the union's order (Replay, the merged file's pass) and,
// for the cost of the order, one file after the other.
func BenchmarkReplay200k(b *testing.B) {
	paths := writeShards(b, b.TempDir(), 4, 200_000, 8)
	m, err := Read(b.Context(), paths, Options{})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	count := func(*loadtest.Record, []time.Duration, string) { n++ }
	b.Run("union-order", func(b *testing.B) {
		for b.Loop() {
			n = 0
			if err := Replay(b.Context(), m, count); err != nil || n != 200_000 {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("file-after-file", func(b *testing.B) {
		for b.Loop() {
			n = 0
			for _, p := range m.Paths {
				_, err := resultfile.ReadRecords(b.Context(), p, func(r *loadtest.Record, itl []time.Duration, msg string) error {
					count(r, itl, msg)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			if n != 200_000 {
				b.Fatal(n)
			}
		}
	})
}
