package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/capacity"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
	"github.com/llm-prober/llm-prober/prober"
	"golang.org/x/net/html"
)

const hostile = `<script>alert("x")</script>`

// syntheticRun is n requests at 100 req/s, no server: lognormal TTFT, 2 %
// failed with a hostile error message, one in 500 cut off, every 100th
// queued in the client, and a server series with a KV ramp.
func syntheticRun(n int) (*loadtest.Run, *summary.Report, serverwatch.ServerReport, summary.Verdict) {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	run := &loadtest.Run{Opts: loadtest.Options{Rate: 100, Burstiness: 1, NumPrompts: n}, Started: time.Unix(1_700_000_000, 0),
		Errors: map[prober.Reason]string{prober.ReasonHTTP5xx: hostile + " upstream said no"}}
	run.Records = make([]loadtest.Record, 0, n)
	var end int64
	for i := range n {
		planned := int64(i) * 10e6
		start := planned + 100e3
		rec := loadtest.Record{Index: int64(i), Planned: planned, PlannedPrompt: 512, PlannedOutput: 64}
		if i%100 == 99 {
			start, rec.SlotWaited = planned+50e6, true
		}
		rec.Start = start
		ttft := int64(80e6 * math.Exp(0.5*rng.NormFloat64()))
		tpot := int64(20e6 * math.Exp(0.2*rng.NormFloat64()))
		switch {
		case i%50 == 7:
			rec.Reason, rec.End = prober.ReasonHTTP5xx, start+5e6
		case i%500 == 13:
			rec.Reason, rec.End, rec.TTFT = loadtest.ReasonCancelled, start+ttft+100e6, ttft
		default:
			rec.TTFT, rec.TPOT, rec.OutputTokens, rec.ITLCount = ttft, tpot, 64, 63
			rec.E2EL = ttft + 63*tpot
			rec.End = start + rec.E2EL + 1e6
			for j := range 4 {
				ms := (start + ttft + int64(j)*16*tpot) / 1e6
				for int64(len(run.TokensPerMs)) <= ms {
					run.TokensPerMs = append(run.TokensPerMs, 0)
				}
				run.TokensPerMs[ms] += 16
			}
			run.ITL.Add(tpot)
		}
		end = max(end, rec.End)
		run.Records = append(run.Records, rec)
	}
	run.Ended = run.Started.Add(time.Duration(end))
	slo := summary.SLO{TTFT: 150 * time.Millisecond, TPOT: 25 * time.Millisecond}
	rep := summary.Summarize(run, slo, nil)
	srv := serverwatch.ServerReport{Available: true, Backend: "vllm", Scrapes: 3, PrefixHitRate: -1, SpecAcceptance: -1, MeanQueueTime: -1}
	for t := -time.Second; t < time.Duration(end)+time.Second; t += time.Second {
		f := float64(t) / float64(end)
		srv.Series = append(srv.Series, serverwatch.ServerSample{At: run.Started.Add(t), KVUsage: min(max(f, 0), 1) * 0.9,
			Running: 8 * math.Max(f, 0), Waiting: math.Max(0, 20*f-10), Preemptions: 100 + math.Floor(10*math.Max(f, 0))})
		srv.Scrapes++
	}
	summary.AttachServer(&srv, rep)
	return run, rep, srv, summary.Judge(rep, &srv)
}

func renderRun(t testing.TB, n int, title string) string {
	t.Helper()
	run, rep, srv, v := syntheticRun(n)
	var b bytes.Buffer
	h := &HTMLReport{Title: title, Runs: []*RunView{NewRunView("", run, rep, srv, v)}}
	if err := h.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// elements parses page and counts its elements by name, and its text.
func elements(t *testing.T, page string) (map[string]int, string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	var text strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			counts[n.Data]++
			for _, a := range n.Attr {
				if (a.Key == "href" || a.Key == "src") && a.Val != "" {
					t.Errorf("<%s %s=%q>: the report must not fetch anything", n.Data, a.Key, a.Val)
				}
			}
		case html.TextNode:
			text.WriteString(n.Data)
			text.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return counts, text.String()
}

func TestHTMLReportRun(t *testing.T) {
	page := renderRun(t, 3000, "model "+hostile)
	counts, text := elements(t, page)
	if counts["script"] != 0 {
		t.Errorf("%d <script> elements: a server string was not escaped, or the page grew a script", counts["script"])
	}
	// 4 metrics × (histogram, CDF), the timeline, throughput, concurrency, KV, queue.
	if counts["svg"] != 13 {
		t.Errorf("%d charts, want 13", counts["svg"])
	}
	for _, want := range []string{hostile + " upstream said no", "model " + hostile, "Verdict:", "from the schedule",
		"TTFT histogram", "TTFT CDF", "ITL CDF", "E2EL histogram", "SLO 150 ms", "SLO 25 ms", "3000 of 3000 measured requests drawn",
		"Server KV-cache usage", "preemptions since the first scrape", "Serving Benchmark Result", "p99 95% CI", "missed an SLO"} {
		if !strings.Contains(text, want) {
			t.Errorf("page text lacks %q", want)
		}
	}
	for _, bad := range []string{"NaN", "Inf", "<script>alert"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	if strings.Count(page, "http://") != strings.Count(page, "http://www.w3.org/2000/svg") || strings.Contains(page, "https://") {
		t.Error("the page references a URL other than the SVG namespace")
	}
}

// Odd runs: no request measured, all failed, no server metrics.
func TestHTMLReportOddRuns(t *testing.T) {
	empty := &loadtest.Run{Started: time.Unix(0, 0), Errors: map[prober.Reason]string{}}
	failed := &loadtest.Run{Started: time.Unix(0, 0), Errors: map[prober.Reason]string{prober.ReasonConnect: "refused"}}
	for i := range 20 {
		failed.Records = append(failed.Records, loadtest.Record{Planned: int64(i) * 1e6, Start: int64(i) * 1e6, End: int64(i)*1e6 + 1e3, Reason: prober.ReasonConnect})
	}
	for name, run := range map[string]*loadtest.Run{"empty": empty, "all failed": failed} {
		rep := summary.Summarize(run, summary.SLO{TTFT: time.Second}, nil)
		srv := serverwatch.ServerReport{Err: "--no-server-metrics"}
		var b bytes.Buffer
		h := &HTMLReport{Title: name, Runs: []*RunView{NewRunView(name, run, rep, srv, summary.Judge(rep, &srv))}}
		if err := h.Write(&b); err != nil {
			t.Fatal(err)
		}
		counts, text := elements(t, b.String())
		if counts["svg"] != 13 || strings.Contains(b.String(), "NaN") || !strings.Contains(text, "no server metrics: --no-server-metrics") {
			t.Errorf("%s: %d charts, NaN %v:\n%s", name, counts["svg"], strings.Contains(b.String(), "NaN"), text)
		}
	}
}

// Past MaxTimelineRows the timeline samples and says so, while the
// distributions count every request; the page's size stops growing with
// the run's.
func TestHTMLReportBounded(t *testing.T) {
	small := renderRun(t, MaxTimelineRows, "x")
	big := renderRun(t, 8*MaxTimelineRows, "x")
	if !strings.Contains(big, "5000 of 40000 measured requests drawn (evenly sampled past 5000; the distributions use all)") ||
		!strings.Contains(big, "39120 requests") { // TTFT: the successes (2 % failed, 0.2 % cut off)
		t.Errorf("sampling note or full distribution counts missing")
	}
	if len(big) > len(small)*5/4 {
		t.Errorf("report grew from %d bytes at %d requests to %d at %d", len(small), MaxTimelineRows, len(big), 8*MaxTimelineRows)
	}
}

func TestServerSeriesBounded(t *testing.T) {
	var s serverwatch.ServerSeries
	base := time.Unix(0, 0)
	for i := range 3*serverwatch.MaxServerSamples + 7 {
		s.Add(serverwatch.ServerSample{At: base.Add(time.Duration(i) * time.Second), Running: float64(i)})
	}
	if len(s.Samples) > serverwatch.MaxServerSamples || len(s.Samples) < serverwatch.MaxServerSamples/2 {
		t.Fatalf("%d samples kept, want between %d and %d", len(s.Samples), serverwatch.MaxServerSamples/2, serverwatch.MaxServerSamples)
	}
	step := s.Samples[1].Running - s.Samples[0].Running
	for i := 1; i < len(s.Samples); i++ {
		if d := s.Samples[i].Running - s.Samples[i-1].Running; d != step {
			t.Fatalf("uneven thinning at %d: step %g, want %g", i, d, step)
		}
	}
	if s.Samples[0].Running != 0 || s.Samples[len(s.Samples)-1].Running < float64(3*serverwatch.MaxServerSamples)-step {
		t.Errorf("span lost: %g..%g", s.Samples[0].Running, s.Samples[len(s.Samples)-1].Running)
	}
}

func testSweep() (*sweep.Sweep, []*RunView) {
	slo := summary.SLO{TTFT: 200 * time.Millisecond, TPOT: 50 * time.Millisecond}
	mk := func(kind string, rate, tput, ttft, good float64) *sweep.Point {
		return &sweep.Point{Kind: kind, Rate: rate, Verdict: summary.BottleneckOptimal + " " + hostile, Report: &summary.Report{SLO: slo, Completed: 1000, Failed: 3,
			OutputThroughput: tput, RequestThroughput: tput / 10, GoodputPercent: good,
			TTFT: stats.Stats{Count: 1000, Percentiles: []stats.Percentile{{P: 99, Value: ttft}}, P99Low: ttft * 0.9, P99High: ttft * 1.2},
			TPOT: stats.Stats{Count: 1000, Percentiles: []stats.Percentile{{P: 99, Value: ttft / 10}}, P99Low: ttft / 11, P99High: ttft / 8}}}
	}
	knee := mk(sweep.PointRate, 7, 240, 70, 99.5)
	sw := &sweep.Sweep{KneeGoodput: 99, Knee: knee, Points: []*sweep.Point{
		mk(sweep.PointSync, 0, 80, 20, 100), mk(sweep.PointMax, math.Inf(1), 350, 10000, 8), mk(sweep.PointRate, 4, 150, 40, 100), knee,
		mk(sweep.PointRate, 9, 270, 360, 96)}}
	run, rep, srv, v := syntheticRun(2000)
	return sw, []*RunView{NewRunView("knee: 7.00 req/s offered", run, rep, srv, v)}
}

func TestHTMLReportSweep(t *testing.T) {
	sw, views := testSweep()
	plan, err := capacity.NewPlan(sw.KneeRate(), 1e6, 0, 3, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := (&HTMLReport{Title: "sweep", Sweep: sw, Plan: plan, Runs: views}).Write(&b); err != nil {
		t.Fatal(err)
	}
	counts, text := elements(t, b.String())
	if counts["script"] != 0 || counts["svg"] != 15 {
		t.Errorf("%d scripts, %d charts (want 0, 2 curves + 13)", counts["script"], counts["svg"])
	}
	for _, want := range []string{"Knee: 24.00 req/s achieved", "Knee rate 95% interval: ", "tok/s (24.00 req/s)", "Capacity plan",
		"GPUs = replicas × GPUs per replica", "7.00 req/s offered (knee)", "63.0–84.0", "p99 95% CI", "knee: 7.00 req/s offered", hostile} {
		if !strings.Contains(text, want) {
			t.Errorf("sweep page lacks %q", want)
		}
	}
	if got := strings.Count(b.String(), `<path stroke="#333"`); got != 10 {
		t.Errorf("%d p99 interval bars, want one per point and panel (10)", got)
	}
}

// BenchmarkHTMLReportMillion builds the report of a 1,000,000-request run
// from synthetic records (no server) and reports the page's size:
// docs/performance.md quotes it.
func BenchmarkHTMLReportMillion(b *testing.B) {
	run, rep, srv, v := syntheticRun(1_000_000)
	b.ResetTimer()
	for range b.N {
		var buf bytes.Buffer
		h := &HTMLReport{Title: "million", Runs: []*RunView{NewRunView("", run, rep, srv, v)}}
		if err := h.Write(&buf); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(buf.Len()), "html_bytes")
	}
}

func TestPeaksKeepsMaxima(t *testing.T) {
	var xy []float64
	for i := range 10 * maxDrawn {
		y := 0.0
		if i == 4321 {
			y = 1 // one saturated scrape
		}
		xy = append(xy, float64(i), y)
	}
	got := peaks(xy)
	if len(got) != 2*maxDrawn {
		t.Fatalf("%d points, want %d", len(got)/2, maxDrawn)
	}
	found := false
	for i := 0; i < len(got); i += 2 {
		found = found || (got[i] == 4321 && got[i+1] == 1)
	}
	if !found {
		t.Error("the one peak was thinned away")
	}
}

// Hostile numbers reach a chart as nothing drawn, never as NaN, a stalled
// tick loop or a panic.
func TestChartOddValues(t *testing.T) {
	c := newChart(400, 200, "odd")
	c.YMin = 1e17 // a fixed axis far from 0: steps below the float's resolution
	c.Lines = []chartLine{{Color: "#000", XY: []float64{0, math.NaN(), 1, math.Inf(1), 2, 1e17 + 5}}}
	c.Dots = []chartDot{{X: math.Inf(-1), Y: 3}}
	c.HRules = []chartRule{{At: math.NaN(), Label: "nan"}}
	svg := c.svg()
	if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Errorf("NaN or Inf in the SVG:\n%s", svg)
	}
	if got := ticks(1e17, 1e17+5, false, 5); len(got) > 7 {
		t.Errorf("%d ticks", len(got))
	}
	log := newChart(400, 200, "log")
	log.XLog, log.YLog = true, true
	log.Lines = []chartLine{{Color: "#000", XY: []float64{0, 0, -1, 5, 1e-300, 1e300}}}
	if svg := log.svg(); strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
		t.Errorf("NaN or Inf in the log chart:\n%s", svg)
	}
}
