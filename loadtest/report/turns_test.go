package report

import (
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// The per-turn table's heading names its basis, the run's (issue 31).
func TestTurnsHeadingNamesBasis(t *testing.T) {
	var b strings.Builder
	rep := &summary.Report{Turns: []summary.TurnStats{{Turn: 1, Requests: 2, Completed: 2}}}
	rep.Basis = summary.BasisSchedule
	writeTurns(rep, &b)
	if !strings.Contains(b.String(), "TTFT by turn (prefix-cache reuse), from the schedule") ||
		!strings.Contains(b.String(), "as SLO attainment does") {
		t.Errorf("heading does not name the schedule basis:\n%s", b.String())
	}
}
