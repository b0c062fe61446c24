package loadtest

import (
	"strings"
	"testing"
	"time"
	"unsafe"
)

// Each verdict from the signals that define it.
func TestJudgeBranches(t *testing.T) {
	st := func(mean, p99 float64) Stats {
		return Stats{Count: 100, Mean: mean, Percentiles: []Percentile{{P: 99, Value: p99}}}
	}
	base := func() *Report {
		return &Report{Mode: "open-loop", Completed: 100, TTFT: st(50, 80), E2EL: st(1000, 1500), Lag: st(0.3, 1)}
	}
	srv := func(f func(*ServerReport)) *ServerReport {
		s := &ServerReport{Available: true, Scrapes: 10, PeakKVUsage: 0.4, MeanQueueTime: time.Millisecond, PrefixHitRate: -1, SpecAcceptance: -1}
		f(s)
		return s
	}
	for _, c := range []struct {
		name string
		rep  func(*Report)
		srv  *ServerReport
		want string
	}{
		{"optimal", nil, srv(func(*ServerReport) {}), BottleneckOptimal},
		{"kv", nil, srv(func(s *ServerReport) { s.PeakKVUsage, s.PeakWaiting = 0.99, 3 }), BottleneckKVCache},
		{"preempt", nil, srv(func(s *ServerReport) { s.Preemptions, s.PreemptionsPer100 = 5, 5 }), BottleneckPreempt},
		{"batch", nil, srv(func(s *ServerReport) { s.PeakWaiting, s.MeanWaiting = 8, 4 }), BottleneckBatch},
		{"batch via TTFT SLO", func(r *Report) { r.SLO.TTFT = 60 * time.Millisecond }, srv(func(s *ServerReport) { s.PeakWaiting = 2 }), BottleneckBatch},
		{"prefill", func(r *Report) { r.TTFT = st(700, 900) }, srv(func(*ServerReport) {}), BottleneckPrefill},
		{"client", func(r *Report) { r.Lag = st(40, 90) }, srv(func(*ServerReport) {}), BottleneckClient},
		{"no metrics", nil, &ServerReport{Err: "connect: refused"}, BottleneckNoMetric},
	} {
		rep := base()
		if c.rep != nil {
			c.rep(rep)
		}
		if v := Judge(rep, c.srv); v.Bottleneck != c.want || v.Summary == "" {
			t.Errorf("%s: %s (%v), want %s", c.name, v.Bottleneck, v.Evidence, c.want)
		}
	}
	// A large p99 lag alone is a caveat, not the verdict.
	rep := base()
	rep.Lag = st(1, 30)
	v := Judge(rep, srv(func(*ServerReport) {}))
	if v.Bottleneck != BottleneckOptimal || !strings.Contains(strings.Join(v.Evidence, "\n"), "caveat: p99 send lag") {
		t.Errorf("lag caveat: %+v", v)
	}
}

// A record stays small: a million of them in ~100 MB.
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(Record{}); n > 104 {
		t.Errorf("Record is %d bytes", n)
	}
}

func TestProgressPrinter(t *testing.T) {
	var b strings.Builder
	p := &ProgressPrinter{W: &b, Terminal: true, Label: "x: "}
	p.Print(Progress{Elapsed: 2 * time.Second, Done: 50, Total: 100, InFlight: 3})
	p.Print(Progress{Elapsed: 4 * time.Second, Done: 100, Total: 100, Final: true})
	if s := b.String(); !strings.Contains(s, "\r\033[K[============            ] x: 50/100 req  25.0 req/s  3 in flight  0 failed  ETA 2s") || !strings.HasSuffix(s, "\n") {
		t.Errorf("terminal: %q", s)
	}
	b.Reset()
	p = &ProgressPrinter{W: &b, Every: time.Second}
	for _, e := range []time.Duration{300 * time.Millisecond, 1200 * time.Millisecond, 1500 * time.Millisecond} {
		p.Print(Progress{Elapsed: e, Done: 1, Remaining: 5 * time.Second})
	}
	p.Print(Progress{Elapsed: 2 * time.Second, Done: 2, Final: true})
	if lines := strings.Count(b.String(), "\n"); lines != 2 || strings.Contains(b.String(), "\r") || !strings.Contains(b.String(), "ETA 5s sending") {
		t.Errorf("lines (%d): %q", lines, b.String())
	}
}
