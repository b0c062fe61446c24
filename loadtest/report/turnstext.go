package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// writeTurns prints a multi-turn run's TTFT by turn.
func writeTurns(rep *summary.Report, w io.Writer) {
	if len(rep.Turns) == 0 {
		return
	}
	fmt.Fprintln(w, textfmt.Center(fmt.Sprintf("TTFT by turn (prefix-cache reuse), from the %s", rep.Basis), '-'))
	fmt.Fprintf(w, "%-6s %-9s %-9s %-10s %-10s %s\n", "turn", "requests", "ok", "p50 ms", "p99 ms", "cached prompt %")
	for _, t := range rep.Turns {
		name := strconv.Itoa(t.Turn)
		if t.AndLater {
			name += "+"
		}
		fmt.Fprintf(w, "%-6s %-9d %-9d %-10.2f %-10.2f %.1f\n", name, t.Requests, t.Completed, t.TTFT.Median, t.TTFT.Value(99), t.CachedPercent)
	}
	fmt.Fprintln(w, "(each turn resends the whole history: its TTFT stays near turn 1's only as far as the prefix cache serves the history; cached % per the server's usage)")
	if rep.Basis == summary.BasisSchedule {
		fmt.Fprintln(w, "(TTFT counts from each turn's planned send time, as SLO attainment does: time waiting in the client is included)")
	}
}
