package summary

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// Replayed against the mock: requests are planned at the trace's
// timestamps × scale exactly, and those that share hash ids with an
// earlier one hit the mock's prefix cache and get a faster first token.
func TestTraceReplayAgainstMock(t *testing.T) {
	mo := mocktarget.FixedMock()
	mo.PrefixCacheBlocks, mo.BlockSize, mo.PrefillPerToken = 1000, 16, 4*time.Millisecond
	_, tg, client := mocktarget.Start(t, mo)
	p := testutil.TempFile(t, "replay.jsonl", `{"timestamp": 1000, "input_length": 64, "output_length": 2, "hash_ids": [1, 2, 3, 4]}
{"timestamp": 1400, "input_length": 64, "output_length": 2, "hash_ids": [1, 2, 3, 4]}
{"timestamp": 1400, "input_length": 64, "output_length": 2, "hash_ids": [9, 10, 11, 12]}
{"timestamp": 1900, "input_length": 64, "output_length": 2, "hash_ids": [1, 2, 30, 40]}
{"timestamp": 2300, "input_length": 64, "output_length": 2}
`)
	tr, err := workload.LoadTrace(p, workload.TraceOptions{Scale: 0.5, BlockSize: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	o := runkit.BaseOptions(tg, client, 0, 0)
	o.API, o.Workload, o.Rate, o.NumPrompts, o.WarmupRequests = config.APICompletions, tr, math.Inf(1), 4, 1
	run, err := loadtest.Execute(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	byIndex := map[int64]loadtest.Record{}
	for _, r := range run.Records {
		byIndex[r.Index] = r
		if !r.Success() {
			t.Fatalf("request %d failed: %s %v", r.Index, r.Reason, run.Errors)
		}
	}
	for i, want := range []time.Duration{0, 200, 200, 450, 650} {
		if got := time.Duration(byIndex[int64(i)].Planned); got != want*time.Millisecond {
			t.Errorf("request %d planned at %v, want %v", i, got, want*time.Millisecond)
		}
	}
	cold, warm, half := byIndex[2], byIndex[1], byIndex[3]
	if cold.CachedTokens != 0 || warm.CachedTokens != 48 || half.CachedTokens != 32 || byIndex[4].CachedTokens != 0 {
		t.Errorf("cached tokens: cold %d, same ids %d (want 48: the last block recomputes), two shared blocks %d (want 32), no ids %d",
			cold.CachedTokens, warm.CachedTokens, half.CachedTokens, byIndex[4].CachedTokens)
	}
	if warm.TTFT >= cold.TTFT || half.TTFT >= cold.TTFT {
		t.Errorf("TTFT: shared prefix %v and half-shared %v not below the cold %v", warm.TTFT, half.TTFT, cold.TTFT)
	}
	rep := Summarize(run, SLO{}, nil)
	if rep.Shape != "trace replay" || len(rep.Stages) != 1 || rep.Warmup != 1 {
		t.Errorf("shape %q, %d stages, %d warm-up", rep.Shape, len(rep.Stages), rep.Warmup)
	}
	if want := 3 / 0.45; math.Abs(rep.Rate-want) > 1e-9 {
		t.Errorf("mean planned rate %g, want %g", rep.Rate, want)
	}
	o.NumPrompts = 5
	if _, err := loadtest.Execute(t.Context(), o); err == nil || !strings.Contains(err.Error(), "the trace holds 5 requests") {
		t.Errorf("more requests than the trace: %v", err)
	}
}
