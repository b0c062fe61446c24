package report

import (
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// The curve is well-formed SVG with the knee, the SLO line and every run.
func TestCurveSVG(t *testing.T) {
	slo := summary.SLO{TTFT: 200 * time.Millisecond, TPOT: 50 * time.Millisecond}
	mk := func(kind string, rate, tput, ttft, good float64) *sweep.Point {
		return &sweep.Point{Kind: kind, Rate: rate, Report: &summary.Report{SLO: slo, Completed: 10, OutputThroughput: tput, RequestThroughput: tput / 10,
			GoodputPercent: good, TTFT: stats.Stats{Percentiles: []stats.Percentile{{P: 99, Value: ttft}}},
			TPOT: stats.Stats{Percentiles: []stats.Percentile{{P: 99, Value: ttft / 10}}}}}
	}
	knee := mk(sweep.PointRate, 7, 240, 70, 100)
	sw := &sweep.Sweep{KneeGoodput: 99, Knee: knee, Points: []*sweep.Point{
		mk(sweep.PointSync, 0, 80, 20, 100), mk(sweep.PointMax, math.Inf(1), 350, 10000, 8), mk(sweep.PointRate, 4, 150, 40, 100), knee, mk(sweep.PointRate, 9, 270, 360, 96)}}
	if f := sw.Frontier(); len(f) != 5 {
		t.Errorf("frontier of a monotone sweep has %d points, want all 5", len(f))
	}
	var b strings.Builder
	if err := WriteSweepSVG(sw, &b, "model & <workload>"); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(b.String()))
	circles := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "circle" {
			circles++
		}
	}
	for _, want := range []string{"tok/s (24.00 req/s)", "SLO 200 ms", "SLO 50 ms", "&amp; &lt;workload&gt;"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if circles != 10 {
		t.Errorf("%d dots, want 5 runs × 2 panels", circles)
	}
}
