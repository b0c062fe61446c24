package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// Issue 31: a single run's p99 interval is its sampling error only; the
// text says so and names what measures the rest.
func TestUncertaintySaysSamplingOnly(t *testing.T) {
	x := make([]float64, 400)
	for i := range x {
		x[i] = float64(i % 97)
	}
	st := stats.ExactStatsCI(x, []float64{50, 99})
	rep := &summary.Report{Completed: 400, TTFT: st, TPOT: st, E2EL: st}
	var buf bytes.Buffer
	WriteUncertainty(rep, &buf)
	for _, want := range []string{"p99 95% CI (ms, batch means): TTFT ", "sampling error only (6 batches of 67 neighbouring requests",
		"run-to-run variation is not in it: --num-runs 5"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}
