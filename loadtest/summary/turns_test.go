package summary

import (
	"math"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// The per-turn TTFT table counts on the run's basis: when requests waited
// in the client (here for a --max-concurrency slot, up to 3 s), goodput
// counts from the schedule, and so does the table (issue 31: it counted
// from the send, p99 ~320 ms against 10 % good).
func TestTurnsOnTheScheduleBasis(t *testing.T) {
	ms := int64(time.Millisecond)
	conv := &workload.Conversations{Think: 0, Syn: workload.NewSynthetic(16, 4, 0, 0, 1, nil), Turns: 2}
	run := &loadtest.Run{Opts: loadtest.Options{Workload: conv, Rate: 10, MaxConcurrency: 1}}
	for i := range 20 {
		planned := int64(i) * 100 * ms
		wait := int64(0)
		if i%2 == 1 { // every second turn waited for the slot
			wait = 3000 * ms
		}
		run.Records = append(run.Records, loadtest.Record{Index: int64(i), Turn: int16(1 + i%2), Planned: planned, Start: planned + wait,
			End: planned + wait + 400*ms, TTFT: 300 * ms, E2EL: 400 * ms, OutputTokens: 4, SlotWaited: wait > 0})
	}
	rep := Summarize(run, SLO{TTFT: time.Second}, nil)
	if rep.Basis != BasisSchedule || len(rep.Turns) != 2 {
		t.Fatalf("basis %s, %d turn rows", rep.Basis, len(rep.Turns))
	}
	if got := rep.Turns[1].TTFT.Value(99); math.Abs(got-3300) > 1e-9 {
		t.Errorf("turn 2 p99 TTFT %.1f ms, want 3300 (from the schedule, as goodput's %.0f%% good counts)", got, rep.GoodputPercent)
	}
	if got := rep.Turns[0].TTFT.Value(99); math.Abs(got-300) > 1e-9 {
		t.Errorf("turn 1 p99 TTFT %.1f ms, want 300", got)
	}
	basis := any(nil)
	for _, kv := range rep.VLLMKeys() {
		if kv.Key == "llm_prober_turns_ttft_basis" {
			basis = kv.Value
		}
	}
	if basis != BasisSchedule {
		t.Errorf("JSON llm_prober_turns_ttft_basis %v, want schedule", basis)
	}
}
