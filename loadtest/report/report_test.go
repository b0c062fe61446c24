package report

import (
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// However long the SLOs, the report's values stay in one column.
func TestReportAlignsWithLongSLO(t *testing.T) {
	slo := summary.SLO{TTFT: 1234567 * time.Microsecond, TPOT: 12345 * time.Microsecond, E2EL: 123456789 * time.Microsecond}
	rep := summary.Summarize(runkit.FakeRun(10, 5, 10), slo, nil)
	var b strings.Builder
	WriteText(rep, &b)
	for _, l := range strings.Split(b.String(), "\n") {
		if !strings.Contains(l, ":") || strings.HasPrefix(l, "(") {
			continue
		}
		if len(l) < 42 || l[40] != ' ' || !strings.HasSuffix(strings.TrimRight(l[:40], " "), ":") {
			t.Errorf("value not at column 41: %q", l)
		}
	}
	if !strings.Contains(b.String(), "SLOs (--goodput, ms):                    ttft:1234.567 tpot:12.345 e2el:123456.789") {
		t.Errorf("SLO line:\n%s", b.String())
	}
}
