package report

import (
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// Requests that queue for a --max-concurrency slot wait for the user too:
// counted from the schedule they miss the SLO, and goodput, --fail-on
// and the verdict say so (issue 21: the send-based report read 100 %).
func TestScheduleLatencyUnderClientQueueing(t *testing.T) {
	o := mocktarget.FixedMock()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 100 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	_, tg, client := mocktarget.Start(t, o)
	opts := runkit.BaseOptions(tg, client, 8, 2)
	// 40 req/s, nearly regular: 8 arrivals in ~175 ms against ≥ 800 ms
	// of service one at a time, so the last ones wait ≥ 400 ms.
	opts.Rate, opts.Burstiness, opts.MaxConcurrency, opts.NumPrompts = 40, 50, 1, 8
	run, err := loadtest.Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	slo := summary.SLO{E2EL: 400 * time.Millisecond}
	rep := summary.Summarize(run, slo, []float64{50, 100})
	if rep.Completed != 8 || rep.Basis != summary.BasisSchedule || rep.SlotWaited == 0 || !strings.Contains(rep.BasisReason, "--max-concurrency slot") {
		t.Fatalf("completed %d basis %q (%s) slot waits %d", rep.Completed, rep.Basis, rep.BasisReason, rep.SlotWaited)
	}
	// From the schedule: E2EL plus the send lag, request by request.
	worst := 0.0
	for _, r := range run.Records {
		worst = max(worst, summary.Ms(r.E2EL+r.Start-r.Planned))
	}
	if got := rep.SchedE2EL.Value(100); got != worst || got <= rep.E2EL.Value(100) || got < 400 {
		t.Errorf("max E2EL from the schedule %.1f ms, want %.1f (from the send %.1f)", got, worst, rep.E2EL.Value(100))
	}
	if rep.GoodputPercentSchedule >= rep.GoodputPercentSend || rep.GoodputPercent != rep.GoodputPercentSchedule || rep.GoodputPercent >= 99 {
		t.Errorf("goodput %.1f%%: send %.1f%%, schedule %.1f%%", rep.GoodputPercent, rep.GoodputPercentSend, rep.GoodputPercentSchedule)
	}
	for _, src := range []string{"goodput<99", "p100_e2el>400"} {
		c, err := summary.ParseCondition(src)
		if err != nil {
			t.Fatal(err)
		}
		if holds, got, err := c.Check(rep); err != nil || !holds {
			t.Errorf("--fail-on %s: holds %v (%g), %v", src, holds, got, err)
		}
	}
	if (&sweep.Point{Report: rep}).Good(99) {
		t.Error("a sweep point whose requests queued in the client counts as good: the knee would be optimistic")
	}
	// Without SLOs the goodput keys mean nothing: --fail-on refuses them.
	for _, k := range []string{"llm_prober_goodput_schedule_percent<99", "llm_prober_goodput_send_percent<99"} {
		c, _ := summary.ParseCondition(k)
		if err := c.Resolve(nil, summary.SLO{}); err == nil {
			t.Errorf("--fail-on %s accepted without --goodput", k)
		}
		if err := c.Resolve(nil, slo); err != nil {
			t.Errorf("--fail-on %s: %v", k, err)
		}
	}
	if v := summary.Judge(rep, &serverwatch.ServerReport{Err: "--no-server-metrics"}); v.Bottleneck != summary.BottleneckCap {
		t.Errorf("verdict %s %v, want %s", v.Bottleneck, v.Evidence, summary.BottleneckCap)
	}
	var b strings.Builder
	WriteText(rep, &b)
	for _, want := range []string{"E2EL from the planned send time", "counted from the schedule (%)", "from the schedule\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	keys := map[string]bool{}
	for _, kv := range rep.VLLMKeys() {
		keys[kv.Key] = true
	}
	for _, k := range []string{"llm_prober_latency_basis", "llm_prober_goodput_schedule_percent", "llm_prober_schedule_e2el_ms", "llm_prober_cancelled"} {
		if !keys[k] {
			t.Errorf("JSON lacks %s", k)
		}
	}
}
