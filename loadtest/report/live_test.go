package report

import (
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/prober"
	"github.com/prometheus/client_golang/prometheus"
)

// What the live listener adds to each finished request: the progress
// counters and one Record into the probe families.
func BenchmarkBenchLiveObserve(b *testing.B) {
	reg := prometheus.NewRegistry()
	l := &Live{metrics: prober.NewMetrics(reg), target: "t"}
	l.register(reg)
	l.metrics.Init("t", "m", LiveModule, 0, nil)
	res := &prober.Result{Target: "bench", Model: "m", Module: LiveModule, TTFT: 40 * time.Millisecond,
		TPOT: 8 * time.Millisecond, E2EL: 1040 * time.Millisecond, OutputTokens: 128, HasTTFT: true}
	res.ITL = make([]time.Duration, 127)
	for i := range res.ITL {
		res.ITL[i] = 8 * time.Millisecond
	}
	rec := &loadtest.Record{}
	b.ReportAllocs()
	for b.Loop() {
		l.observe(rec, res)
	}
}
