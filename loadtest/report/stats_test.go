package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// With --percentiles 50,90 the reports print only p50 and p90, yet the
// sweep table, the knee sentence, the curve and the verdict have the
// p99 they need: no NaN anywhere.
func TestPercentilesWithoutP99(t *testing.T) {
	ps := []float64{50, 90}
	slo := summary.SLO{TTFT: 150 * time.Millisecond}
	sync := summary.Summarize(runkit.FakeRun(20, 1, 10), slo, ps)
	good := summary.Summarize(runkit.FakeRun(100, 20, 20), slo, ps)
	bad := summary.Summarize(runkit.FakeRun(100, 40, 100), slo, ps)
	for _, rep := range []*summary.Report{sync, good, bad} {
		for _, s := range []stats.Stats{rep.TTFT, rep.TPOT, rep.ITL, rep.E2EL, rep.Lag} {
			if v := s.Value(99); math.IsNaN(v) || v <= 0 {
				t.Fatalf("p99 not computed: %v", v)
			}
		}
	}
	var b strings.Builder
	WriteText(good, &b)
	if s := b.String(); strings.Contains(s, "P99") || !strings.Contains(s, "P90 TTFT (ms):") {
		t.Errorf("report prints other percentiles than asked for:\n%s", s)
	}
	for _, kv := range good.VLLMKeys() {
		if strings.HasPrefix(kv.Key, "p99") {
			t.Errorf("JSON has %s, not asked for", kv.Key)
		}
	}
	knee := &sweep.Point{Kind: sweep.PointRate, Rate: 20, Report: good, Verdict: summary.BottleneckOptimal}
	sw := &sweep.Sweep{KneeGoodput: 99, Knee: knee, FirstBad: &sweep.Point{Kind: sweep.PointRate, Rate: 40, Report: bad},
		Points: []*sweep.Point{{Kind: sweep.PointSync, Report: sync}, knee}}
	sw.Points = append(sw.Points, sw.FirstBad)
	b.Reset()
	WriteSweep(sw, &b)
	table := b.String()
	if strings.Contains(table, "NaN") || !strings.Contains(table, "p90 TTFT") || !strings.Contains(table, "p99 TTFT ≤ 118 ms") {
		t.Errorf("sweep table (p90 columns, p99 in the knee sentence, no NaN):\n%s", table)
	}
	if strings.Contains(strings.SplitN(table, "\n", 3)[1], "p99") {
		t.Errorf("table header shows p99, not asked for:\n%s", table)
	}
	b.Reset()
	if err := WriteSweepSVG(sw, &b, "x"); err != nil || strings.Contains(b.String(), "NaN") || !strings.Contains(b.String(), "p90 TTFT (ms, log scale)") {
		t.Errorf("SVG: %v, NaN or p99 panel:\n%s", err, b.String())
	}
	if f := sw.Frontier(); len(f) == 0 {
		t.Error("empty frontier")
	}
	// The verdict's lag caveat reads p99 send lag: 30 ms here (mean 1.6 ms).
	rep := summary.Summarize(runkit.FakeRun(100, 20, 20), slo, ps)
	v := summary.Judge(rep, &serverwatch.ServerReport{Available: true, Scrapes: 3, PrefixHitRate: -1, SpecAcceptance: -1})
	if !strings.Contains(strings.Join(v.Evidence, "\n"), "caveat: p99 send lag behind the schedule 30.0 ms") {
		t.Errorf("lag caveat lost without p99 in --percentiles: %+v", v)
	}
	// batch_too_small via the TTFT objective reads p99 TTFT too.
	rep.SLO.TTFT = 50 * time.Millisecond
	v = summary.Judge(rep, &serverwatch.ServerReport{Available: true, Scrapes: 3, PeakWaiting: 2, WaitingReported: true, PrefixHitRate: -1, SpecAcceptance: -1})
	if v.Bottleneck != summary.BottleneckBatch {
		t.Errorf("batch_too_small via p99 TTFT > SLO lost without p99 in --percentiles: %+v", v)
	}
	if s := (stats.Stats{}).Tail(); s != 99 {
		t.Errorf("Tail of no percentiles = %g", s)
	}
	if s := good.TTFT.Tail(); s != 90 {
		t.Errorf("Tail of 50,90 = %g", s)
	}
}
