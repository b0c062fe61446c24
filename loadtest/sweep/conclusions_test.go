package sweep

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prober"
)

// A server that sends headers (or some chunks) and then nothing fails
// after --idle-timeout, by phase, not after the full --timeout.
func TestIdleTimeoutBoundsStalls(t *testing.T) {
	for _, c := range []struct {
		fault mockvllm.Fault
		want  prober.Reason
	}{{mockvllm.FaultStall, prober.ReasonTimeoutFirstToken}, {mockvllm.FaultStallMid, prober.ReasonTimeoutDecode}} {
		o := mocktarget.FixedMock()
		o.Faults, o.StallTimeout = mockvllm.FaultRates{c.fault: 1}, time.Hour
		_, tg, client := mocktarget.Start(t, o)
		opts := runkit.BaseOptions(tg, client, 8, 8)
		opts.Rate, opts.NumPrompts, opts.Timeout, opts.IdleTimeout = math.Inf(1), 3, time.Hour, 200*time.Millisecond
		run, err := loadtest.Execute(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		rep := summary.Summarize(run, summary.SLO{}, nil)
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
	o := mocktarget.FixedMock()
	o.Faults, o.StallTimeout = mockvllm.FaultRates{mockvllm.FaultStall: 1}, time.Hour
	_, tg, client := mocktarget.Start(t, o)
	opts := runkit.BaseOptions(tg, client, 8, 8)
	opts.Rate, opts.Duration, opts.Timeout, opts.WarmupRequests = 50, 300*time.Millisecond, time.Hour, 2
	run, err := loadtest.Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := summary.Summarize(run, summary.SLO{}, nil)
	for _, r := range run.Records {
		if !r.Cancelled() {
			t.Errorf("request %d (warm-up %v): %q, want cancelled", r.Index, r.Warmup, r.Reason)
		}
	}
	if rep.Warmup != 2 || len(run.Records) <= 2 || rep.Cancelled != len(run.Records)-2 || rep.Failed != 0 || rep.Completed != 0 || run.Interrupted {
		t.Errorf("%d records: cancelled %d failed %d completed %d interrupted %v", len(run.Records), rep.Cancelled, rep.Failed, rep.Completed, run.Interrupted)
	}
	if v := summary.Judge(rep, nil); v.Bottleneck != summary.BottleneckFailing {
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
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	tg.URL = ts.URL
	opts := runkit.BaseOptions(tg, client, 8, 8)
	opts.Rate, opts.NumPrompts, opts.Timeout = math.Inf(1), 5, time.Hour
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for arrived.Load() < 5 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	run, err := loadtest.Execute(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep := summary.Summarize(run, summary.SLO{}, nil); !run.Interrupted || rep.Cancelled != 5 || rep.Failed != 0 {
		t.Errorf("interrupted %v, cancelled %d failed %d", run.Interrupted, rep.Cancelled, rep.Failed)
	}
}

// A warm-up at an infinite rate is sent a few at a time, never as a
// flood, and the measured schedule starts after it.
func TestWarmupAtInfiniteRateIsBounded(t *testing.T) {
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	for _, c := range []struct {
		name     string
		set      func(*loadtest.Options)
		maxConc  int
		maxCount int
	}{
		{"duration, no cap", func(o *loadtest.Options) { o.WarmupDuration = 200 * time.Millisecond }, loadtest.DefaultWarmupConcurrency, 0},
		{"count, cap 3", func(o *loadtest.Options) { o.WarmupRequests, o.MaxConcurrency = 20, 3 }, 3, 20},
	} {
		opts := runkit.BaseOptions(tg, client, 8, 2)
		opts.Rate, opts.NumPrompts = math.Inf(1), 4
		c.set(&opts)
		run, err := loadtest.Execute(t.Context(), opts)
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
		peak, _ := summary.Concurrency(events, 0)
		if n == 0 || peak > c.maxConc || (c.maxCount > 0 && n != c.maxCount) {
			t.Errorf("%s: %d warm-up requests, %d at once", c.name, n, peak)
		}
		for _, r := range run.Records {
			if !r.Warmup && r.Planned < warmEnd {
				t.Errorf("%s: measured request %d planned at %v, before the warm-up ended (%v)", c.name, r.Index, time.Duration(r.Planned), time.Duration(warmEnd))
			}
		}
		if rep := summary.Summarize(run, summary.SLO{}, nil); rep.Completed != 4 {
			t.Errorf("%s: %d measured", c.name, rep.Completed)
		}
	}
}
