package loadtest

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prober"
)

// Requests that queue for a --max-concurrency slot wait for the user too:
// counted from the schedule they miss the SLO, and goodput, --fail-on
// and the verdict say so (issue 21: the send-based report read 100 %).
func TestScheduleLatencyUnderClientQueueing(t *testing.T) {
	o := fixedMock()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 100 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	_, tg, client := startMock(t, o)
	opts := baseOptions(tg, client, 8, 2)
	// 40 req/s, nearly regular: 8 arrivals in ~175 ms against ≥ 800 ms
	// of service one at a time, so the last ones wait ≥ 400 ms.
	opts.Rate, opts.Burstiness, opts.MaxConcurrency, opts.NumPrompts = 40, 50, 1, 8
	run, err := Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	slo := SLO{E2EL: 400 * time.Millisecond}
	rep := Summarize(run, slo, []float64{50, 100})
	if rep.Completed != 8 || rep.Basis != BasisSchedule || rep.SlotWaited == 0 || !strings.Contains(rep.BasisReason, "--max-concurrency slot") {
		t.Fatalf("completed %d basis %q (%s) slot waits %d", rep.Completed, rep.Basis, rep.BasisReason, rep.SlotWaited)
	}
	// From the schedule: E2EL plus the send lag, request by request.
	worst := 0.0
	for _, r := range run.Records {
		worst = max(worst, ms(r.E2EL+r.Start-r.Planned))
	}
	if got := rep.SchedE2EL.Value(100); got != worst || got <= rep.E2EL.Value(100) || got < 400 {
		t.Errorf("max E2EL from the schedule %.1f ms, want %.1f (from the send %.1f)", got, worst, rep.E2EL.Value(100))
	}
	if rep.GoodputPercentSchedule >= rep.GoodputPercentSend || rep.GoodputPercent != rep.GoodputPercentSchedule || rep.GoodputPercent >= 99 {
		t.Errorf("goodput %.1f%%: send %.1f%%, schedule %.1f%%", rep.GoodputPercent, rep.GoodputPercentSend, rep.GoodputPercentSchedule)
	}
	for _, src := range []string{"goodput<99", "p100_e2el>400"} {
		c, err := ParseCondition(src)
		if err != nil {
			t.Fatal(err)
		}
		if holds, got, err := c.Check(rep); err != nil || !holds {
			t.Errorf("--fail-on %s: holds %v (%g), %v", src, holds, got, err)
		}
	}
	if (&Point{Report: rep}).Good(99) {
		t.Error("a sweep point whose requests queued in the client counts as good: the knee would be optimistic")
	}
	// Without SLOs the goodput keys mean nothing: --fail-on refuses them.
	for _, k := range []string{"llm_prober_goodput_schedule_percent<99", "llm_prober_goodput_send_percent<99"} {
		c, _ := ParseCondition(k)
		if err := c.Resolve(nil, SLO{}); err == nil {
			t.Errorf("--fail-on %s accepted without --goodput", k)
		}
		if err := c.Resolve(nil, slo); err != nil {
			t.Errorf("--fail-on %s: %v", k, err)
		}
	}
	if v := Judge(rep, &ServerReport{Err: "--no-server-metrics"}); v.Bottleneck != BottleneckCap {
		t.Errorf("verdict %s %v, want %s", v.Bottleneck, v.Evidence, BottleneckCap)
	}
	var b strings.Builder
	rep.WriteText(&b)
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

// A server that sends headers (or some chunks) and then nothing fails
// after --idle-timeout, by phase, not after the full --timeout.
func TestIdleTimeoutBoundsStalls(t *testing.T) {
	for _, c := range []struct {
		fault mockvllm.Fault
		want  prober.Reason
	}{{mockvllm.FaultStall, prober.ReasonTimeoutFirstToken}, {mockvllm.FaultStallMid, prober.ReasonTimeoutDecode}} {
		o := fixedMock()
		o.Faults, o.StallTimeout = mockvllm.FaultRates{c.fault: 1}, time.Hour
		_, tg, client := startMock(t, o)
		opts := baseOptions(tg, client, 8, 8)
		opts.Rate, opts.NumPrompts, opts.Timeout, opts.IdleTimeout = math.Inf(1), 3, time.Hour, 200*time.Millisecond
		run, err := Execute(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		rep := Summarize(run, SLO{}, nil)
		if rep.Failed != 3 || rep.FailedBy[c.want] != 3 || !strings.Contains(run.Errors[c.want], "--idle-timeout") {
			t.Errorf("%s: %+v %v", c.fault, rep.FailedBy, run.Errors)
		}
		if failing, why := rep.Failing(); !failing || !strings.Contains(why, "no request succeeded") {
			t.Errorf("%s: failing %v %q", c.fault, failing, why)
		}
	}
}

// --duration ends the run: requests still in flight, warm-up ones too,
// are cut off and counted as cancelled, not failed, and not lost.
func TestDurationCancelsStragglers(t *testing.T) {
	o := fixedMock()
	o.Faults, o.StallTimeout = mockvllm.FaultRates{mockvllm.FaultStall: 1}, time.Hour
	_, tg, client := startMock(t, o)
	opts := baseOptions(tg, client, 8, 8)
	opts.Rate, opts.Duration, opts.Timeout, opts.WarmupRequests = 50, 300*time.Millisecond, time.Hour, 2
	run, err := Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := Summarize(run, SLO{}, nil)
	for _, r := range run.Records {
		if !r.Cancelled() {
			t.Errorf("request %d (warm-up %v): %q, want cancelled", r.Index, r.Warmup, r.Reason)
		}
	}
	if rep.Warmup != 2 || len(run.Records) <= 2 || rep.Cancelled != len(run.Records)-2 || rep.Failed != 0 || rep.Completed != 0 || run.Interrupted {
		t.Errorf("%d records: cancelled %d failed %d completed %d interrupted %v", len(run.Records), rep.Cancelled, rep.Failed, rep.Completed, run.Interrupted)
	}
	if v := Judge(rep, nil); v.Bottleneck != BottleneckFailing {
		t.Errorf("verdict %s", v.Bottleneck)
	}
}

// An interrupt cancels the requests in flight and counts them: the
// partial report shows them instead of 0 successful and 0 failed.
func TestInterruptCountsInflight(t *testing.T) {
	var arrived atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // a hung server
	}))
	defer ts.Close()
	_, tg, client := startMock(t, fixedMock())
	tg.URL = ts.URL
	opts := baseOptions(tg, client, 8, 8)
	opts.Rate, opts.NumPrompts, opts.Timeout = math.Inf(1), 5, time.Hour
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for arrived.Load() < 5 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	run, err := Execute(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep := Summarize(run, SLO{}, nil); !run.Interrupted || rep.Cancelled != 5 || rep.Failed != 0 {
		t.Errorf("interrupted %v, cancelled %d failed %d", run.Interrupted, rep.Cancelled, rep.Failed)
	}
}

// A warm-up at an infinite rate is sent a few at a time, never as a
// flood, and the measured schedule starts after it.
func TestWarmupAtInfiniteRateIsBounded(t *testing.T) {
	_, tg, client := startMock(t, fixedMock())
	for _, c := range []struct {
		name     string
		set      func(*Options)
		maxConc  int
		maxCount int
	}{
		{"duration, no cap", func(o *Options) { o.WarmupDuration = 200 * time.Millisecond }, DefaultWarmupConcurrency, 0},
		{"count, cap 3", func(o *Options) { o.WarmupRequests, o.MaxConcurrency = 20, 3 }, 3, 20},
	} {
		opts := baseOptions(tg, client, 8, 2)
		opts.Rate, opts.NumPrompts = math.Inf(1), 4
		c.set(&opts)
		run, err := Execute(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var events []int64
		warmEnd, n := int64(0), 0
		for _, r := range run.Records {
			if r.Warmup {
				n++
				events = append(events, r.Start<<1|1, r.End<<1)
				warmEnd = max(warmEnd, r.End)
			}
		}
		peak, _ := concurrency(events, 0)
		if n == 0 || peak > c.maxConc || (c.maxCount > 0 && n != c.maxCount) {
			t.Errorf("%s: %d warm-up requests, %d at once", c.name, n, peak)
		}
		for _, r := range run.Records {
			if !r.Warmup && r.Planned < warmEnd {
				t.Errorf("%s: measured request %d planned at %v, before the warm-up ended (%v)", c.name, r.Index, time.Duration(r.Planned), time.Duration(warmEnd))
			}
		}
		if rep := Summarize(run, SLO{}, nil); rep.Completed != 4 {
			t.Errorf("%s: %d measured", c.name, rep.Completed)
		}
	}
}
