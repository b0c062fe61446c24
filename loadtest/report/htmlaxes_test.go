package report

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/compare"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// A time axis ends at the next nice step past its data: a 23 s run's axis
// ended at 50 s (niceCeil), more than twice the data (issue 31 item 9).
func TestChartAxisEndsNearItsData(t *testing.T) {
	for _, top := range []float64{23, 10.1, 1.01, 51, 99, 0.0023, 7e6} {
		c := newChart(560, 300, "t")
		c.XMin = 0
		c.Lines = []chartLine{{XY: []float64{0, 0, top, top}}}
		for _, x := range []bool{true, false} {
			_, hi, data := c.extent(x)
			if hi < top || hi > 1.5*top || data != top {
				t.Errorf("data to %g: axis to %g (data %g), want within [%g, %g]", top, hi, data, top, 1.5*top)
			}
		}
	}
	// A fixed end is kept and not reported as fitted.
	c := newChart(560, 300, "t")
	c.YMin, c.YMax = 0, 100
	c.Lines = []chartLine{{XY: []float64{0, 5, 1, 7}}}
	if _, hi, data := c.extent(false); hi != 100 || data == data {
		t.Errorf("fixed 0–100: to %g, data %g", hi, data)
	}
}

var segRE = regexp.MustCompile(`M([0-9.]+) ([0-9.]+)H`)

// The timeline's rows rise with the request number, as its axis does: the
// first request sent was drawn at the top, against an axis whose numbers
// rise upward (issue 31 item 9).
func TestTimelineFirstRequestAtTheBottom(t *testing.T) {
	rv := &RunView{rowsTotal: 3, rows: []tlRow{
		{planned: 0, start: 0, first: 0.1, end: 0.5, class: tlGood},
		{planned: 1, start: 1, first: 1.1, end: 1.5, class: tlGood},
		{planned: 2, start: 2, first: 2.1, end: 2.5, class: tlGood},
	}}
	svg := string(rv.timelineChart())
	ys := map[float64]float64{} // a segment's start x → its y, in pixels
	for _, m := range segRE.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		ys[x] = y
	}
	var first, last float64
	var xs []float64
	for x := range ys {
		xs = append(xs, x)
	}
	if len(xs) < 3 {
		t.Fatalf("segments %v in\n%s", ys, svg)
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	first, last = ys[lo], ys[hi]
	if first <= last {
		t.Errorf("the first request is drawn at y=%g, the last at y=%g: want the first lowest (largest y)", first, last)
	}
}

// Captions name a bucket as a reader would: "per 504.021437ms bucket"
// before (issue 31 item 9).
func TestBucketCaption(t *testing.T) {
	if got := round2(504021437 * time.Nanosecond); got != 500*time.Millisecond {
		t.Errorf("round2: %s", got)
	}
	for d, want := range map[time.Duration]string{500 * time.Millisecond: "500 ms", 1500 * time.Millisecond: "1.5 s", 37 * time.Second: "37 s", 3 * time.Minute: "3 min", 4 * time.Millisecond: "4 ms"} {
		if got := fmtDuration(d); got != want {
			t.Errorf("fmtDuration(%s) = %q, want %q", d, got, want)
		}
	}
	page := renderRun(t, 300, "short run") // 3 s: sub-second buckets
	if !regexp.MustCompile(`per \d+ ms bucket`).MatchString(page) || strings.Contains(page, "ms bucket\"") {
		i := strings.Index(page, "bucket")
		t.Errorf("caption: %q", page[max(0, i-40):i+10])
	}
}

// The run's summary says what load was offered; the sweep's table lists
// the points by offered load, not by when they ran (issue 31 item 9).
func TestHTMLReportOfferedAndSweepOrder(t *testing.T) {
	page := renderRun(t, 300, "r")
	if !strings.Contains(page, "Offered load") || !strings.Contains(page, "100.00 req/s offered (burstiness 1)") {
		t.Errorf("the summary lacks the offered rate")
	}
	sw, _ := testSweep()
	var order []string
	for _, row := range sweepPage(sw, nil).Rows {
		order = append(order, row[1])
	}
	if got := strings.Join(order, " "); got != "— 4.00 7.00 9.00 —" || sweepPage(sw, nil).Rows[0][0] != pointName(sw.Points[0]) {
		t.Errorf("offered column in table order: %s", got)
	}
}

// runsPage is a --num-runs page of three synthetic runs.
func runsPage(t testing.TB) (string, *summary.RunsSummary) {
	t.Helper()
	var reps []*summary.Report
	var views []*RunView
	for i := range 3 {
		run, rep, srv, v := syntheticRun(200 + 50*i)
		reps = append(reps, rep)
		views = append(views, NewRunView(fmt.Sprintf("run %d", i+1), run, rep, srv, v))
	}
	sum := summary.SummarizeRuns(reps, []int64{1, 2, 3})
	var b bytes.Buffer
	if err := (&HTMLReport{Title: "runs", RunsSummary: sum, Runs: views}).Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), sum
}

// --num-runs has a chart per metric: each run's value, the mean and its
// interval (it had none; issue 31 item 9).
func TestHTMLReportRunsCharts(t *testing.T) {
	page, sum := runsPage(t)
	charts := 0
	for _, r := range sum.Rows {
		if len(r.Values) > 0 {
			charts++
			// The share of good requests reads as SLO attainment (issue 34).
			title := strings.TrimSuffix(summary.MetricLabel(r.Key, r.Unit), " ("+r.Unit+")")
			if !strings.Contains(page, ">"+title+"</text>") {
				t.Errorf("no chart titled %s", title)
			}
		}
	}
	if charts == 0 || !strings.Contains(page, "Each run's value, and the mean with its 95% interval") || !strings.Contains(page, "3 runs: a weak interval") {
		t.Errorf("%d metrics with values; the page lacks their charts", charts)
	}
	if got := strings.Count(page, "<title>run 2: "); got != charts {
		t.Errorf("%d dots for run 2, want one per chart (%d)", got, charts)
	}
}

// comparePage is a bench compare --report page of two synthetic runs, the
// new one's TTFT 20 % slower.
func comparePage(t testing.TB) string {
	t.Helper()
	mk := func(path string, slow float64) *resultfile.RunFile {
		rng := rand.New(rand.NewPCG(7, uint64(slow*10)))
		f := &resultfile.RunFile{Path: path, Keys: map[string]any{"completed": 500.0, "output_throughput": 900.0 / slow}, Measured: 500, Good: 490}
		for range 500 {
			ttft := slow * 80 * math.Exp(0.4*rng.NormFloat64())
			f.TTFT, f.TPOT = append(f.TTFT, ttft), append(f.TPOT, 20)
			f.E2EL, f.ITLMean = append(f.E2EL, ttft+63*20), append(f.ITLMean, 20)
		}
		return f
	}
	base, nw := mk("base "+hostile+".json", 1), mk("new.json", 1.2)
	cv := &CompareView{Comparison: compare.Compare(base, nw, 0.05, nil), Base: base, New: nw}
	var b bytes.Buffer
	if err := (&HTMLReport{Title: "compare", Compare: cv}).Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The comparison page draws both runs' CDFs and its table.
func TestHTMLReportCompare(t *testing.T) {
	page := comparePage(t)
	for _, want := range []string{"<h2>Comparison</h2>", "TTFT CDF, base and new", "base (500 requests)", "mean_ttft_ms (ms)", "base &lt;script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A fitted axis's end carries a label: 21 ms on a short chart ended at
// 25 with ticks 0 and 20 only.
func TestChartEndIsLabelled(t *testing.T) {
	c := newChart(370, 260, "t")
	c.Dots = []chartDot{{X: 1, Y: 21}, {X: 2, Y: 20}}
	svg := c.svg()
	if !strings.Contains(svg, `class="ytick"`) || !regexp.MustCompile(`class="ytick"[^>]*>25</text>`).MatchString(svg) {
		t.Errorf("no label at the y axis's end (25):\n%s", svg)
	}
}
