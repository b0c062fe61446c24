package prober

import (
	"compress/gzip"
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/internal/exposition"
)

// benchSchedules fills m with n schedules that have each run a few
// 16-token probes, as in the scale harness.
func benchSchedules(m *Metrics, n int) {
	end := time.Unix(1700000000, 0)
	itl := make([]time.Duration, 15)
	for i := range itl {
		itl[i] = time.Duration(18+i%5) * time.Millisecond
	}
	for i := range n {
		tg := fmt.Sprintf("target-%05d", i)
		m.Init(tg, "llama-3-8b", "chat", time.Minute, map[string]time.Duration{"ttft": time.Second})
		for k := range 3 {
			// Probes carry a trace id since issue 17: the exemplars hold both.
			id := fmt.Sprintf("%016x", i*10+k+1)
			m.Record(&Result{ID: id, Trace: NewTraceContext(id), Target: tg, Model: "llama-3-8b", Module: "chat",
				Headers: 3 * time.Millisecond, TTFT: time.Duration(50+7*k) * time.Millisecond, HasTTFT: true,
				ITL: itl, MaxITL: slices.Max(itl), ContentChunks: len(itl) + 1, TPOT: 20 * time.Millisecond, E2EL: 350 * time.Millisecond,
				OutputTokens: 16, PromptTokens: 11, UsageReported: true, Good: true}, end.Add(time.Duration(k)*time.Minute))
		}
	}
}

// BenchmarkWriteFamilies renders the per-schedule series of 10,000
// schedules in each format, as a /metrics scrape does (gzip at the
// handler's level included in the -gzip variants). It reports the
// exposition size and the live heap the store holds per schedule.
func BenchmarkWriteFamilies(b *testing.B) {
	const n = 10000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := NewMetrics(prometheus.NewRegistry())
	benchSchedules(m, n)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perSchedule := float64(after.HeapAlloc-before.HeapAlloc) / n
	for _, tc := range []struct {
		name   string
		format exposition.Format
		gzip   bool
	}{
		{"text", exposition.FormatText, false},
		{"openmetrics", exposition.FormatOpenMetrics, false},
		{"openmetrics-gzip", exposition.FormatOpenMetrics, true},
		{"protobuf", exposition.FormatProtobuf, false},
		{"protobuf-gzip", exposition.FormatProtobuf, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var size countingWriter
			var out io.Writer = &size
			zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
			for b.Loop() {
				size = 0
				if tc.gzip {
					zw.Reset(&size)
					out = zw
				}
				w := exposition.NewWriter(out, tc.format)
				m.WriteFamilies(w)
				if err := w.Flush(); err != nil {
					b.Fatal(err)
				}
				if tc.gzip {
					zw.Close()
				}
			}
			b.ReportMetric(float64(size)/1e6, "MB/scrape")
			b.ReportMetric(perSchedule, "heap-B/schedule")
		})
	}
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
