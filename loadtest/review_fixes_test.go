package loadtest

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// --fail-on keys are checked before the run against the keys the run
// will have: a typo, a percentile not in --percentiles and a goodput
// condition without SLOs are errors that list the valid keys.
func TestFailOnResolveBeforeTheRun(t *testing.T) {
	ps := []float64{50, 90}
	slo := SLO{TTFT: 500 * time.Millisecond}
	for _, c := range []struct {
		src  string
		slo  SLO
		want string // the resolved key, or "error: <part of the message>"
	}{
		{"p99_ttf>500", slo, "error: valid keys: "},
		{"p99_ttft>500", slo, "error: no result key \"p99_ttft\""},
		{"p90_ttft>500", slo, "p90_ttft_ms"},
		{"p90_ttft_ms>500", slo, "p90_ttft_ms"},
		{"mean_itl>5", slo, "mean_itl_ms"},
		{"failures>0", slo, "failed"},
		{"any-failure", slo, "failed"},
		{"throughput<10", slo, "request_throughput"},
		{"goodput<99", slo, "llm_prober_goodput_percent"},
		{"request_goodput<5", slo, "request_goodput"},
		{"goodput<99", SLO{}, "error: goodput needs SLOs"},
		{"request_goodput<5", SLO{}, "error: without --goodput"},
		{"llm_prober_good_requests<5", SLO{}, "error: goodput needs SLOs"},
	} {
		cond, err := ParseCondition(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		err = cond.Resolve(ps, c.slo)
		if msg, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("%s: error %v, want one with %q", c.src, err, msg)
			}
			continue
		}
		if err != nil || cond.Key != c.want {
			t.Errorf("%s: key %q, %v; want %q", c.src, cond.Key, err, c.want)
		}
	}
	cond, _ := ParseCondition("p99_ttf>500")
	err := cond.Resolve(ps, SLO{})
	for _, want := range []string{"failed", "request_throughput", "p90", "_{ttft,tpot,itl,e2el}[_ms]", "with --goodput also goodput"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the list of valid keys lacks %q: %v", want, err)
		}
	}
	if keys := FailOnKeys(ps, SLO{}); strings.Contains(strings.Join(keys, " "), "p99_") {
		t.Errorf("keys of a run without p99 name p99: %v", keys)
	}
}

// fakeRun is an open-loop run at rate whose i-th request (of n) has a
// TTFT of base+i ms and is sent 1 ms late, every 50th 30 ms late.
func fakeRun(n int, rate, base float64) *Run {
	r := &Run{Opts: Options{Rate: rate, Burstiness: 1, NumPrompts: n}}
	for i := range n {
		planned := int64(float64(i) / rate * 1e9)
		ttft := int64((base + float64(i)) * 1e6)
		lag := int64(1e6)
		if i%50 == 49 {
			lag = 30e6
		}
		r.Records = append(r.Records, Record{Index: int64(i), Planned: planned, Start: planned + lag,
			End: planned + ttft + 20e6, TTFT: ttft, TPOT: 5e6, E2EL: ttft + 20e6, PlannedPrompt: 16, OutputTokens: 5})
		r.ITL.Add(5e6)
	}
	return r
}

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

// A negative burstiness (or temperature) is an error, not silently 1.
func TestOptionsRejectNegativeBurstiness(t *testing.T) {
	o := baseOptions(&config.Target{}, http.DefaultClient, 8, 2)
	o.Rate, o.NumPrompts = 10, 1
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		o.Burstiness = bad
		if err := o.check(); err == nil || !strings.Contains(err.Error(), "burstiness") {
			t.Errorf("burstiness %g: %v", bad, err)
		}
	}
	o.Burstiness = 0 // unset: 1
	if err := o.check(); err != nil {
		t.Errorf("burstiness 0 (unset): %v", err)
	}
	temp := -0.5
	o.Temperature = &temp
	if err := o.check(); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Errorf("temperature -0.5: %v", err)
	}
}

// Closed-loop progress says what happens: users stop in so long, then the
// last requests drain; never "ETA 0s sending".
func TestProgressClosedLoopDuration(t *testing.T) {
	var b strings.Builder
	p := &ProgressPrinter{W: &b, Every: time.Nanosecond}
	p.Print(Progress{Elapsed: time.Second, Done: 10, InFlight: 4, Remaining: 5 * time.Second, ClosedLoop: true})
	p.Print(Progress{Elapsed: 7 * time.Second, Done: 60, InFlight: 3, ClosedLoop: true})
	p.Print(Progress{Elapsed: 8 * time.Second, Done: 63, ClosedLoop: true, Final: true})
	p.Print(Progress{Elapsed: 9 * time.Second, Done: 70, InFlight: 2}) // open loop, sending over
	s := b.String()
	for _, want := range []string{"users stop in 5s", "draining 3 in flight", "0 failed  done", "draining 2 in flight"} {
		if !strings.Contains(s, want) {
			t.Errorf("progress lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "0s sending") {
		t.Errorf("progress says 0s sending:\n%s", s)
	}
}

// However long the SLOs, the report's values stay in one column.
func TestReportAlignsWithLongSLO(t *testing.T) {
	slo := SLO{TTFT: 1234567 * time.Microsecond, TPOT: 12345 * time.Microsecond, E2EL: 123456789 * time.Microsecond}
	rep := Summarize(fakeRun(10, 5, 10), slo, nil)
	var b strings.Builder
	rep.WriteText(&b)
	for _, l := range strings.Split(b.String(), "\n") {
		if !strings.Contains(l, ":") || strings.HasPrefix(l, "(") {
			continue
		}
		if len(l) < 42 || l[40] != ' ' || !strings.HasSuffix(strings.TrimRight(l[:40], " "), ":") {
			t.Errorf("value not at column 41: %q", l)
		}
	}
	if !strings.Contains(b.String(), "Goodput SLOs (ms):                       ttft:1234.567 tpot:12.345 e2el:123456.789") {
		t.Errorf("SLO line:\n%s", b.String())
	}
}

// A capacity plan takes the daily volume or the peak rate, not both.
func TestPlanRefusesBothInputs(t *testing.T) {
	if _, err := NewPlan(4, 1e6, 20, 2, 2, 1); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("daily and peak: %v", err)
	}
	if _, err := NewPlan(4, -5, 0, 2, 2, 1); err == nil {
		t.Error("a negative daily volume must be refused")
	}
}
