package report

import (
	"bytes"
	_ "embed"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/capacity"
	"github.com/llm-prober/llm-prober/internal/testutil"
)

//go:embed testdata/layoutcheck.js
var layoutCheck string

var verdictRE = regexp.MustCompile(`(?s)<pre id="layout-verdict">(.*?)</pre>`)

// browserLayout renders page in headless Chromium with the layout check
// injected and returns its verdict: "OK …" or "FAIL" and the problems.
func browserLayout(t *testing.T, page string, width int) string {
	t.Helper()
	i := strings.LastIndex(page, "</body>")
	if i < 0 {
		t.Fatal("no </body>")
	}
	page = page[:i] + "<script>" + layoutCheck + "</script>" + page[i:]
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	m := verdictRE.FindStringSubmatch(testutil.DumpDOM(t, file, width, 900))
	if m == nil {
		t.Fatal("no layout verdict in the DOM: the check did not run")
	}
	return m[1]
}

// The report renders in a real browser with no text clipped by its chart
// or overlapping another, and no sideways scrolling, at a laptop's width
// and a narrow window's (the charts scale down).
func TestHTMLReportInBrowser(t *testing.T) {
	testutil.Chromium(t)
	sw, views := testSweep()
	plan, err := capacity.NewPlan(sw.KneeRate(), 0, 40, 0, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	var sweep bytes.Buffer
	if err := (&HTMLReport{Title: "sweep " + hostile, Sweep: sw, Plan: plan, Runs: views}).Write(&sweep); err != nil {
		t.Fatal(err)
	}
	var curve bytes.Buffer
	if err := WriteSweepSVG(sw, &curve, "the --curve file "+hostile); err != nil {
		t.Fatal(err)
	}
	runs, _ := runsPage(t)
	pages := map[string]string{
		"run":     renderRun(t, 3000, "run "+hostile),
		"runs":    runs,
		"compare": comparePage(t),
		"sweep":   sweep.String(),
		"curve":   "<!DOCTYPE html><html><body style=\"margin:0\">" + curve.String() + "</body></html>",
	}
	for name, page := range pages {
		for _, width := range []int{1280, 700} {
			if name == "curve" && width < 800 {
				continue // a fixed 760-pixel SVG file
			}
			if got := browserLayout(t, page, width); !strings.HasPrefix(got, "OK ") {
				t.Errorf("%s at %d px:\n%s", name, width, got)
			} else {
				t.Logf("%s at %d px: %s", name, width, got)
			}
		}
	}
}

// The check fails when it should: a label past the viewBox's edge, two
// labels on top of each other, a page wider than the window.
func TestLayoutCheckCatchesClipping(t *testing.T) {
	testutil.Chromium(t)
	page := `<!DOCTYPE html><html><body>
<svg width="300" height="100" viewBox="0 0 300 100" font-family="sans-serif" font-size="12">
<text x="250" y="50">cut off at the right edge</text>
<text x="10" y="20">first</text><text x="14" y="24">second</text>
<text x="10" y="99">below</text>
</svg>
<div style="width:3000px">wide</div>
</body></html>`
	got := browserLayout(t, page, 800)
	for _, want := range []string{"FAIL", `"cut off at the right edge" clipped`, `"second" overlaps "first"`, `"below" clipped`, "page scrolls sideways"} {
		if !strings.Contains(got, want) {
			t.Errorf("checker missed %q:\n%s", want, got)
		}
	}
	// And the old curve's flaw: a chart (one of ours) whose label runs
	// past the edge is caught too.
	c := newChart(300, 200, "t")
	c.Note = "x"
	svg := strings.Replace(c.svg(), "</svg>", `<text x="290" y="195">legend past the edge</text></svg>`, 1)
	if got := browserLayout(t, "<!DOCTYPE html><html><body>"+svg+"</body></html>", 800); !strings.Contains(got, `"legend past the edge" clipped`) {
		t.Errorf("checker missed a clipped legend:\n%s", got)
	}
}

// The check fails on an inverted y axis (numbers rising downward) and on
// an axis that runs far past its data (a 23 s run drawn to 50 s), and the
// chart helper's own axes pass it.
func TestLayoutCheckCatchesBadAxes(t *testing.T) {
	testutil.Chromium(t)
	page := `<!DOCTYPE html><html><body>
<svg width="300" height="200" viewBox="0 0 300 200" font-family="sans-serif" font-size="12" data-xmax="23">
<text class="ytick" x="10" y="40">0</text><text class="ytick" x="10" y="100">50</text><text class="ytick" x="10" y="160">100</text>
<text class="xtick" x="60" y="190">0</text><text class="xtick" x="150" y="190">25</text><text class="xtick" x="240" y="190">50</text>
</svg></body></html>`
	got := browserLayout(t, page, 800)
	for _, want := range []string{"FAIL", "y axis inverted: 50 drawn below 0", "x axis runs to 50, past 1.5× its data's 23"} {
		if !strings.Contains(got, want) {
			t.Errorf("checker missed %q:\n%s", want, got)
		}
	}
	// The old helper's end (niceCeil: 23 → 50) fails; today's (25) passes.
	c := newChart(400, 240, "23 s")
	c.Lines = []chartLine{{Color: "#000", XY: []float64{0, 1, 23, 7}}}
	c.XMin = 0
	if got := browserLayout(t, "<!DOCTYPE html><html><body>"+c.svg()+"</body></html>", 800); !strings.HasPrefix(got, "OK ") {
		t.Errorf("a 23 s chart:\n%s", got)
	}
}
