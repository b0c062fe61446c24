package summary

import (
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/prober"
)

// Each verdict from the signals that define it.
func TestJudgeBranches(t *testing.T) {
	st := func(mean, p99 float64) stats.Stats {
		return stats.Stats{Count: 100, Mean: mean, Percentiles: []stats.Percentile{{P: 99, Value: p99}}}
	}
	base := func() *Report {
		return &Report{Mode: "open-loop", Completed: 100, TTFT: st(50, 80), E2EL: st(1000, 1500), Lag: st(0.3, 1)}
	}
	srv := func(f func(*serverwatch.ServerReport)) *serverwatch.ServerReport {
		s := &serverwatch.ServerReport{Available: true, Scrapes: 10, PeakKVUsage: 0.4, MeanQueueTime: time.Millisecond, PrefixHitRate: -1, SpecAcceptance: -1,
			KVReported: true, RunningReported: true, WaitingReported: true, PreemptionsReported: true}
		f(s)
		return s
	}
	// 100 req/s (10 ms gaps), sent 25 ms late on average and over 1.6 s
	// where 1 s was planned.
	lagging := func(r *Report) {
		r.Rate, r.Lag, r.GenLag = 100, st(25, 90), st(25, 90)
		r.PlannedSpan, r.SendSpan = time.Second, 1600*time.Millisecond
	}
	for _, c := range []struct {
		name string
		rep  func(*Report)
		srv  *serverwatch.ServerReport
		want string
	}{
		{"optimal", nil, srv(func(*serverwatch.ServerReport) {}), BottleneckOptimal},
		{"kv", nil, srv(func(s *serverwatch.ServerReport) { s.PeakKVUsage, s.PeakWaiting = 0.99, 3 }), BottleneckKVCache},
		{"preempt", nil, srv(func(s *serverwatch.ServerReport) { s.Preemptions, s.PreemptionsPer100 = 5, 5 }), BottleneckPreempt},
		{"batch", nil, srv(func(s *serverwatch.ServerReport) { s.PeakWaiting, s.MeanWaiting = 8, 4 }), BottleneckBatch},
		{"batch via TTFT SLO", func(r *Report) { r.SLO.TTFT = 60 * time.Millisecond }, srv(func(s *serverwatch.ServerReport) { s.PeakWaiting = 2 }), BottleneckBatch},
		{"prefill", func(r *Report) { r.TTFT = st(700, 900) }, srv(func(*serverwatch.ServerReport) {}), BottleneckPrefill},
		{"client", lagging, srv(func(*serverwatch.ServerReport) {}), BottleneckClient},
		// The run: a 10 ms lag while the server is saturated is
		// the server's doing, and its evidence is named.
		{"client lag but server saturated", lagging, srv(func(s *serverwatch.ServerReport) { s.PeakKVUsage, s.PeakWaiting = 1, 33 }), BottleneckKVCache},
		// A constant lag delivers the rate: not the generator's bottleneck.
		{"steady lag", func(r *Report) { lagging(r); r.SendSpan = r.PlannedSpan }, srv(func(*serverwatch.ServerReport) {}), BottleneckOptimal},
		// Small against the gap (2 req/s: 500 ms), a 20 ms lag holds nothing back.
		{"lag small against the gap", func(r *Report) { lagging(r); r.Rate, r.GenLag = 2, st(20, 40) }, srv(func(*serverwatch.ServerReport) {}), BottleneckOptimal},
		{"cap", func(r *Report) { r.Rate, r.MaxConcurrency, r.SlotWaited, r.Lag = 10, 1, 60, st(900, 2800) }, srv(func(*serverwatch.ServerReport) {}), BottleneckCap},
		{"cap, server saturated", func(r *Report) { r.Rate, r.MaxConcurrency, r.SlotWaited = 10, 1, 60 }, srv(func(s *serverwatch.ServerReport) { s.PeakWaiting, s.MeanWaiting = 8, 4 }), BottleneckBatch},
		// Failures come first, whatever the server says.
		{"43% failing", func(r *Report) {
			r.Completed, r.Failed, r.FailedBy = 57, 43, map[prober.Reason]int{prober.ReasonHTTP5xx: 43}
		}, srv(func(*serverwatch.ServerReport) {}), BottleneckFailing},
		{"none succeeded", func(r *Report) { r.Completed, r.Cancelled = 0, 8 }, nil, BottleneckFailing},
		{"4% failing is a caveat", func(r *Report) {
			r.Completed, r.Failed, r.FailedBy = 96, 4, map[prober.Reason]int{prober.ReasonHTTP5xx: 4}
		}, srv(func(*serverwatch.ServerReport) {}), BottleneckOptimal},
		{"no metrics", nil, &serverwatch.ServerReport{Err: "connect: refused"}, BottleneckNoMetric},
	} {
		rep := base()
		if c.rep != nil {
			c.rep(rep)
		}
		if v := Judge(rep, c.srv); v.Bottleneck != c.want || v.Summary == "" {
			t.Errorf("%s: %s (%v), want %s", c.name, v.Bottleneck, v.Evidence, c.want)
		}
	}
	// A client verdict keeps the server's evidence: why it was not named.
	rep0 := base()
	lagging(rep0)
	if v := Judge(rep0, srv(func(*serverwatch.ServerReport) {})); !strings.Contains(strings.Join(v.Evidence, "\n"), "peak waiting requests 0") {
		t.Errorf("client verdict hides the server's evidence: %v", v.Evidence)
	}
	// A large p99 lag alone is a caveat, not the verdict.
	rep := base()
	rep.Rate, rep.Lag, rep.GenLag = 100, st(1, 30), st(1, 30)
	v := Judge(rep, srv(func(*serverwatch.ServerReport) {}))
	if v.Bottleneck != BottleneckOptimal || !strings.Contains(strings.Join(v.Evidence, "\n"), "caveat: p99 send lag") {
		t.Errorf("lag caveat: %+v", v)
	}
}

// A record stays small: a million of them in ~100 MB.
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(loadtest.Record{}); n > 104 {
		t.Errorf("Record is %d bytes", n)
	}
}
