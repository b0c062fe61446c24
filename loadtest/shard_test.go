package loadtest_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// sent is a run's requests as (index, planned, planned prompt tokens),
// sorted by index: what the schedule asked for, whoever sent it.
type sent struct {
	index, planned int64
	prompt         int32
	warmup         bool
}

func sentOf(runs ...*loadtest.Run) []sent {
	var out []sent
	for _, r := range runs {
		for _, rec := range r.Records {
			out = append(out, sent{rec.Index, rec.Planned, rec.PlannedPrompt, rec.Warmup})
		}
	}
	slices.SortFunc(out, func(a, b sent) int { return int(a.index - b.index) })
	return out
}

// Two shards of an open-loop run (a constant gamma rate, a ramp, a
// trace) send the whole run's requests between them: same indexes,
// planned times and lengths, request k by shard k mod 2.
func TestShardsPartitionTheOpenLoop(t *testing.T) {
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	var lines strings.Builder
	for i := range 40 {
		fmt.Fprintf(&lines, `{"timestamp": %d, "input_length": %d, "output_length": 2}`+"\n", i*i/20, 4+i%5)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	trace, err := workload.LoadTrace(path, workload.TraceOptions{Scale: 1, BlockSize: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(o *loadtest.Options){
		"gamma": func(o *loadtest.Options) { o.Rate, o.Burstiness = 800, 0.3 },
		"ramp": func(o *loadtest.Options) {
			o.Rate, o.Ramp = math.Inf(1), &loadtest.Ramp{Strategy: loadtest.RampLinear, Start: 200, End: 2000}
		},
		"trace": func(o *loadtest.Options) { o.Rate, o.Workload = math.Inf(1), trace },
	} {
		base := runkit.BaseOptions(tg, client, 8, 2)
		base.Workload = workload.NewSynthetic(8, 2, 0, 0.5, 3, nil)
		base.NumPrompts, base.WarmupRequests, base.Seed = 30, 3, 3
		edit(&base)
		whole := execute(t, base)
		var parts []*loadtest.Run
		for i := range 2 {
			o := base
			o.Shard = shard.Shard{Index: i, Count: 2}
			p := execute(t, o)
			for _, rec := range p.Records {
				if int(rec.Index)%2 != i {
					t.Errorf("%s: shard %d sent request %d", name, i, rec.Index)
				}
			}
			parts = append(parts, p)
		}
		if got, want := sentOf(parts...), sentOf(whole); !slices.Equal(got, want) {
			t.Errorf("%s: the shards' union differs from the whole run:\n%v\n%v", name, got, want)
		}
	}
}

// A multi-turn run's sessions go to shard (session mod N), numbered
// apart; a closed loop's users split the same way, with its share of
// --num-prompts each.
func TestShardsPartitionSessionsAndUsers(t *testing.T) {
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	o := runkit.BaseOptions(tg, client, 0, 0)
	o.Workload, o.Rate, o.NumPrompts, o.Seed = &workload.Conversations{Syn: workload.NewSynthetic(8, 2, 0, 0, 1, nil), Turns: 2}, 500, 7, 1
	firstTurns := func(runs ...*loadtest.Run) (planned []int64, requests int) {
		for _, r := range runs {
			for _, rec := range r.Records {
				if rec.Turn == 1 {
					planned = append(planned, rec.Planned)
				}
			}
			requests += len(r.Records)
		}
		slices.Sort(planned)
		return planned, requests
	}
	wantPlanned, wantN := firstTurns(execute(t, o))
	var parts []*loadtest.Run
	for i := range 3 {
		so := o
		so.Shard = shard.Shard{Index: i, Count: 3}
		parts = append(parts, execute(t, so))
	}
	if got, n := firstTurns(parts...); !slices.Equal(got, wantPlanned) || n != wantN {
		t.Errorf("sessions: first turns planned %v (%d requests), the whole run's %v (%d)", got, n, wantPlanned, wantN)
	}
	idx := map[int64]bool{}
	for _, r := range sentOf(parts...) {
		if idx[r.index] {
			t.Errorf("sessions: request index %d sent by two shards", r.index)
		}
		idx[r.index] = true
	}

	c := runkit.BaseOptions(tg, client, 8, 2)
	c.Concurrency, c.NumPrompts = 5, 23
	total := 0
	for i := range 2 {
		so := c
		so.Shard = shard.Shard{Index: i, Count: 2}
		r := execute(t, so)
		if want := []int{12, 11}[i]; len(r.Records) != want {
			t.Errorf("closed loop: shard %d sent %d, want its share %d", i, len(r.Records), want)
		}
		for _, rec := range r.Records {
			if int(rec.Index)%2 != i {
				t.Errorf("closed loop: shard %d numbered a request %d", i, rec.Index)
			}
		}
		total += len(r.Records)
	}
	if total != 23 {
		t.Errorf("closed loop: the shards sent %d, want 23", total)
	}
}

func execute(t *testing.T, o loadtest.Options) *loadtest.Run {
	t.Helper()
	r, err := loadtest.Execute(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cv is the coefficient of variation of the gaps between sorted times.
func cv(times []float64) float64 {
	slices.Sort(times)
	var gaps []float64
	for i := 1; i < len(times); i++ {
		gaps = append(gaps, times[i]-times[i-1])
	}
	var m, v float64
	for _, g := range gaps {
		m += g
	}
	m /= float64(len(gaps))
	for _, g := range gaps {
		v += (g - m) * (g - m)
	}
	return math.Sqrt(v/float64(len(gaps)-1)) / m
}

// The claim behind partitioning, by simulation: gamma arrivals of shape
// 0.3 have a gap CV of 1/√0.3 ≈ 1.83. Partitioned across 8 shards, the
// union is the one schedule and keeps it; independent streams at an
// N-th of the rate (superposition, each shard its own seed) drift
// towards Poisson's 1 as N grows, so --burstiness would lie.
func TestPartitionKeepsBurstiness(t *testing.T) {
	const n, shards, rate = 200_000, 8, 1000.0
	want := 1 / math.Sqrt(0.3)
	o := loadtest.Options{Rate: rate, Burstiness: 0.3, Seed: 11}
	plan := o.Plan()
	perShard := make([][]float64, shards)
	for k := range n {
		at := plan.Next().Seconds()
		s := shard.Shard{Index: k % shards, Count: shards}
		if !s.Owns(k) {
			t.Fatalf("request %d not owned by shard %d", k, k%shards)
		}
		perShard[k%shards] = append(perShard[k%shards], at)
	}
	var merged []float64
	for _, p := range perShard {
		merged = append(merged, p...)
	}
	if got := cv(merged); math.Abs(got-want) > 0.05 {
		t.Errorf("partitioned union: CV %.3f, want %.3f ± 0.05", got, want)
	}
	superposed := func(streams int) float64 {
		var times []float64
		horizon := math.Inf(1) // where every stream still sends
		for s := range streams {
			a := stats.NewArrivals(rate/float64(streams), 0.3, int64(100+s))
			var at float64
			for range n / streams {
				at = a.Next().Seconds()
				times = append(times, at)
			}
			horizon = min(horizon, at)
		}
		return cv(slices.DeleteFunc(times, func(x float64) bool { return x > horizon }))
	}
	s8, s64 := superposed(shards), superposed(64)
	if s8 > want-0.1 || s64 > s8-0.1 {
		t.Errorf("superposed streams: CV %.3f (8), %.3f (64): the test's premise is that they drift towards 1", s8, s64)
	}
	t.Logf("CV: partitioned %.3f, superposed %.3f (8 streams) %.3f (64), gamma(0.3) %.3f", cv(merged), s8, s64, want)
}

// BenchmarkShardSchedule is a shard's own overhead: it draws the whole
// schedule (a million gamma arrivals) and skips the other shards' part
// (docs/performance.md). One shard of 16 sends 62,500 of them.
func BenchmarkShardSchedule(b *testing.B) {
	s := shard.Shard{Index: 3, Count: 16}
	b.ReportAllocs()
	for b.Loop() {
		o := loadtest.Options{Rate: 1000, Burstiness: 0.3, Seed: 1}
		plan, owned := o.Plan(), 0
		for k := range 1_000_000 {
			plan.Next()
			if s.Owns(k) {
				owned++
			}
		}
		if owned != 62_500 {
			b.Fatal(owned)
		}
	}
}
