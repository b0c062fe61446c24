package summary

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// Issue 31: the verdict from evidence that misled it. Each case is a
// run's report and the server's, built to the figures the issue saw.
func TestJudgeEvidence(t *testing.T) {
	st := func(mean, p99 float64) stats.Stats {
		return stats.Stats{Count: 2000, Mean: mean, Percentiles: []stats.Percentile{{P: 99, Value: p99}}}
	}
	// A 2,000-request burst: bench's TTFT ~1 s from the send, the
	// server's own 57 ms, no server queue.
	burst := func() *Report {
		return &Report{Mode: "open-loop", Rate: math.Inf(1), Completed: 2000, TTFT: st(1052, 1800), E2EL: st(1500, 2300),
			Schedule: Schedule{GenLag: st(300, 443), Basis: BasisSend}}
	}
	vllm := func(f func(*serverwatch.ServerReport)) *serverwatch.ServerReport {
		s := &serverwatch.ServerReport{Available: true, Scrapes: 10, PeakKVUsage: 0.3, PeakRunning: 256, MeanQueueTime: 500 * time.Microsecond,
			QueueCount: 2000, MeanTTFT: 57 * time.Millisecond, PrefixHitRate: -1, SpecAcceptance: -1,
			KVReported: true, RunningReported: true, WaitingReported: true, PreemptionsReported: true}
		if f != nil {
			f(s)
		}
		return s
	}
	for _, c := range []struct {
		name     string
		rep      func() *Report
		srv      *serverwatch.ServerReport
		want     string
		evidence []string // each must appear
		absent   []string // none may
	}{
		{name: "burst the client could not send", rep: burst, srv: vllm(nil), want: BottleneckClient,
			evidence: []string{"the server's own mean TTFT 57.0 ms", "the time was lost in the client"}},
		// Waiting for one of --max-concurrency 4 slots is not client lag:
		// the slot-waiters are no generator lag, and bench's TTFT from the
		// send is the server's.
		{name: "a --max-concurrency wait", rep: func() *Report {
			r := burst()
			r.MaxConcurrency, r.TTFT, r.Lag, r.SlotWaited = 4, st(60, 90), st(20000, 39000), 1996
			r.GenLag = stats.Stats{Count: 4, Mean: 0.3, Percentiles: []stats.Percentile{{P: 99, Value: 0.5}}}
			return r
		}, srv: vllm(nil), want: BottleneckOptimal, absent: []string{"lost in the client", "conflicting"}},
		{name: "client on time, server fast, bench slow: conflict", rep: func() *Report {
			r := burst()
			r.GenLag = st(0.2, 0.9)
			return r
		}, srv: vllm(nil), want: BottleneckUndetermined, evidence: []string{"conflicting"}},
		// The server's own queue names it, the conflict noted.
		{name: "client late and server queued", rep: burst,
			srv:  vllm(func(s *serverwatch.ServerReport) { s.MeanQueueTime, s.PeakWaiting = 300*time.Millisecond, 40 }),
			want: BottleneckBatch, evidence: []string{"conflicting: the client sent late", "the server queued"}},
		{name: "the server's own TTFT explains bench's: prefill", rep: burst,
			srv: vllm(func(s *serverwatch.ServerReport) { s.MeanTTFT = time.Second }), want: BottleneckPrefill},
		// llama.cpp: no KV-cache gauge, no preemption counter.
		{name: "gauges not exported", rep: func() *Report {
			r := burst()
			r.Rate, r.TTFT, r.E2EL, r.GenLag = 5, st(40, 60), st(400, 500), st(0.1, 0.5)
			return r
		}, srv: vllm(func(s *serverwatch.ServerReport) {
			s.KVReported, s.PreemptionsReported, s.PeakKVUsage, s.MeanTTFT, s.MeanQueueTime = false, false, 0, 38*time.Millisecond, -1
		}), want: BottleneckOptimal,
			evidence: []string{"peak KV-cache usage: not reported by the server", "preemptions: not reported by the server"},
			absent:   []string{"0.0%", "KV cache not full"}},
		// The vLLM simulator records queue time only for requests that
		// waited: 10 of 2,000 waited 800 ms each.
		{name: "queue time of the waiters only", rep: func() *Report {
			r := burst()
			r.Rate, r.TTFT, r.E2EL, r.GenLag = 20, st(50, 90), st(300, 400), st(0.1, 0.5)
			return r
		}, srv: vllm(func(s *serverwatch.ServerReport) {
			s.MeanQueueTime, s.QueueCount, s.MeanTTFT, s.PeakWaiting, s.MeanWaiting = 800*time.Millisecond, 10, 48*time.Millisecond, 2, 0.1
		}), want: BottleneckOptimal, evidence: []string{"for 10 of 2000 requests", "prefill share of service time 16%"},
			absent: []string{"no queueing", "share of service time -"}},
		{name: "queue above TTFT: share undetermined, never negative", rep: func() *Report {
			r := burst()
			r.Rate, r.TTFT, r.E2EL, r.GenLag = 20, st(50, 90), st(300, 400), st(0.1, 0.5)
			return r
		}, srv: vllm(func(s *serverwatch.ServerReport) {
			s.MeanQueueTime, s.MeanTTFT = 200*time.Millisecond, 48*time.Millisecond
		}),
			want: BottleneckOptimal, evidence: []string{"prefill share of service time: undetermined"}, absent: []string{"share of service time -"}},
		{name: "peak waiting 2 is not 'no queueing'", rep: func() *Report {
			r := burst()
			r.Rate, r.TTFT, r.E2EL, r.GenLag = 20, st(50, 90), st(300, 400), st(0.1, 0.5)
			return r
		}, srv: vllm(func(s *serverwatch.ServerReport) {
			s.PeakWaiting, s.MeanWaiting, s.MeanTTFT = 2, 0.05, 45*time.Millisecond
		}),
			want: BottleneckOptimal, absent: []string{"no queueing"}},
	} {
		rep := c.rep()
		AttachServer(c.srv, rep)
		v := Judge(rep, c.srv)
		all := v.Summary + "\n" + strings.Join(v.Evidence, "\n")
		if v.Bottleneck != c.want {
			t.Errorf("%s: %s, want %s\n%s", c.name, v.Bottleneck, c.want, all)
		}
		for _, e := range c.evidence {
			if !strings.Contains(all, e) {
				t.Errorf("%s: lacks %q\n%s", c.name, e, all)
			}
		}
		for _, e := range c.absent {
			if strings.Contains(all, e) {
				t.Errorf("%s: says %q\n%s", c.name, e, all)
			}
		}
	}
}

// The prefill share is in [0, 1] whatever the server's queue time says.
func TestPrefillShareBounded(t *testing.T) {
	for _, q := range []time.Duration{-1, 0, time.Millisecond, 40 * time.Millisecond, 49 * time.Millisecond, 50 * time.Millisecond, time.Second} {
		for _, ttft := range []float64{0, 10, 50, 400} {
			rep := &Report{TTFT: stats.Stats{Mean: ttft}, E2EL: stats.Stats{Mean: 300}}
			share, ok := prefillShareOf(rep, &serverwatch.ServerReport{MeanQueueTime: q})
			if ok && (share < 0 || share > 1) {
				t.Errorf("queue %v, TTFT %g ms: share %g", q, ttft, share)
			}
		}
	}
}
