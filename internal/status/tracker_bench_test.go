package status

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/prober"
)

// BenchmarkObserve is the scheduler's cost per probe with 10,000
// (target, module) pairs whose servers export metrics, an hour filled at a
// 60 s interval; it reports the heap the windows hold per pair.
func BenchmarkObserve(b *testing.B) {
	const n = 10000
	results := make([]*prober.Result, n)
	for i := range results {
		results[i] = &prober.Result{Target: fmt.Sprintf("target-%05d", i), Module: "chat",
			TTFT: 80 * time.Millisecond, HasTTFT: true, TPOT: 20 * time.Millisecond, Good: true}
	}
	reading := func(string) (ServerReading, bool) {
		return ServerReading{At: time.Now(), KVCacheUsage: 0.4, RequestsWaiting: 2, Preemptions: 7}, true
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tr := NewTracker(reading)
	now := t0
	tr.now = func() time.Time { return now }
	for m := range Minutes {
		for i, r := range results {
			now = t0.Add(time.Duration(m)*time.Minute + time.Duration(i)*time.Minute/n)
			tr.Observe(r)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perPair := float64(after.HeapAlloc-before.HeapAlloc) / n
	i := 0
	for b.Loop() {
		now = now.Add(time.Minute / n)
		tr.Observe(results[i%n])
		i++
	}
	b.ReportMetric(perPair, "heap-B/pair")
}
