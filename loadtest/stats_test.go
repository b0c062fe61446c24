package loadtest

import (
	"math"
	"strings"
	"testing"
	"time"
)

// With --percentiles 50,90 the reports print only p50 and p90, yet the
// sweep table, the knee sentence, the curve and the verdict have the
// p99 they need: no NaN anywhere.
func TestPercentilesWithoutP99(t *testing.T) {
	ps := []float64{50, 90}
	slo := SLO{TTFT: 150 * time.Millisecond}
	sync := Summarize(fakeRun(20, 1, 10), slo, ps)
	good := Summarize(fakeRun(100, 20, 20), slo, ps)
	bad := Summarize(fakeRun(100, 40, 100), slo, ps)
	for _, rep := range []*Report{sync, good, bad} {
		for _, s := range []Stats{rep.TTFT, rep.TPOT, rep.ITL, rep.E2EL, rep.Lag} {
			if v := s.Value(99); math.IsNaN(v) || v <= 0 {
				t.Fatalf("p99 not computed: %v", v)
			}
		}
	}
	var b strings.Builder
	good.WriteText(&b)
	if s := b.String(); strings.Contains(s, "P99") || !strings.Contains(s, "P90 TTFT (ms):") {
		t.Errorf("report prints other percentiles than asked for:\n%s", s)
	}
	for _, kv := range good.VLLMKeys() {
		if strings.HasPrefix(kv.Key, "p99") {
			t.Errorf("JSON has %s, not asked for", kv.Key)
		}
	}
	knee := &Point{Kind: PointRate, Rate: 20, Report: good, Verdict: BottleneckOptimal}
	sw := &Sweep{KneeGoodput: 99, Knee: knee, FirstBad: &Point{Kind: PointRate, Rate: 40, Report: bad},
		Points: []*Point{{Kind: PointSync, Report: sync}, knee}}
	sw.Points = append(sw.Points, sw.FirstBad)
	b.Reset()
	sw.WriteText(&b)
	table := b.String()
	if strings.Contains(table, "NaN") || !strings.Contains(table, "p90 TTFT") || !strings.Contains(table, "p99 TTFT ≤ 118 ms") {
		t.Errorf("sweep table (p90 columns, p99 in the knee sentence, no NaN):\n%s", table)
	}
	if strings.Contains(strings.SplitN(table, "\n", 3)[1], "p99") {
		t.Errorf("table header shows p99, not asked for:\n%s", table)
	}
	b.Reset()
	if err := sw.WriteSVG(&b, "x"); err != nil || strings.Contains(b.String(), "NaN") || !strings.Contains(b.String(), "p90 TTFT (ms, log scale)") {
		t.Errorf("SVG: %v, NaN or p99 panel:\n%s", err, b.String())
	}
	if f := sw.Frontier(); len(f) == 0 {
		t.Error("empty frontier")
	}
	// The verdict's lag caveat reads p99 send lag: 30 ms here (mean 1.6 ms).
	rep := Summarize(fakeRun(100, 20, 20), slo, ps)
	v := Judge(rep, &ServerReport{Available: true, Scrapes: 3, PrefixHitRate: -1, SpecAcceptance: -1})
	if !strings.Contains(strings.Join(v.Evidence, "\n"), "caveat: p99 send lag behind the schedule 30.0 ms") {
		t.Errorf("lag caveat lost without p99 in --percentiles: %+v", v)
	}
	// batch_too_small via the TTFT objective reads p99 TTFT too.
	rep.SLO.TTFT = 50 * time.Millisecond
	v = Judge(rep, &ServerReport{Available: true, Scrapes: 3, PeakWaiting: 2, PrefixHitRate: -1, SpecAcceptance: -1})
	if v.Bottleneck != BottleneckBatch {
		t.Errorf("batch_too_small via p99 TTFT > SLO lost without p99 in --percentiles: %+v", v)
	}
	if s := (Stats{}).Tail(); s != 99 {
		t.Errorf("Tail of no percentiles = %g", s)
	}
	if s := good.TTFT.Tail(); s != 90 {
		t.Errorf("Tail of 50,90 = %g", s)
	}
}
