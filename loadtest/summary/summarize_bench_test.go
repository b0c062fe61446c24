package summary

import (
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
)

// The cost of judging SLOs (issue 34: per-objective misses, attainment
// by input length) on a 100,000-request run, against none set.
func BenchmarkSummarize100k(b *testing.B) {
	run := runkit.FakeRun(100_000, 50, 20)
	for i := range run.Records {
		run.Records[i].PlannedPrompt = int32(16 + i%2000)
		run.Records[i].ITLCount, run.Records[i].MaxGapUs = 4, int32(5000+i%700_000)
	}
	for _, c := range []struct {
		name string
		slo  SLO
	}{{"no-slo", SLO{}}, {"slo", SLO{TTFT: 200 * time.Millisecond, TTFTPerToken: 500 * time.Microsecond, TPOT: 50 * time.Millisecond, MaxITL: 300 * time.Millisecond}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Summarize(run, c.slo, nil)
			}
		})
	}
}
