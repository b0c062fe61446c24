package summary

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// SampleWarnings names the percentiles of TTFT, TPOT and E2EL reported
// (p99 always: the knee and the verdict read it) that rest on too few
// Samples to be more than the maximum (p99 under 100), one line for the
// metrics that share a sample count.
func (rep *Report) SampleWarnings() []string {
	type group struct {
		metrics, ps, need []string
		n                 int
	}
	var out []*group
	byKey := map[string]*group{}
	for _, m := range []struct {
		name string
		s    stats.Stats
	}{{"TTFT", rep.TTFT}, {"TPOT", rep.TPOT}, {"E2EL", rep.E2EL}} {
		var ps, need []string
		all := append(slices.Clone(m.s.Percentiles), m.s.Internal...)
		slices.SortFunc(all, func(a, b stats.Percentile) int { return stats.CmpFloat(a.P, b.P) })
		for _, p := range all {
			if n := stats.MinSamplesFor(p.P); m.s.Count > 0 && m.s.Count < n {
				ps = append(ps, "p"+textfmt.PercentileName(p.P))
				need = append(need, fmt.Sprintf("p%s needs %d", textfmt.PercentileName(p.P), n))
			}
		}
		if len(ps) == 0 {
			continue
		}
		key := fmt.Sprint(m.s.Count, ps)
		if g := byKey[key]; g != nil {
			g.metrics = append(g.metrics, m.name)
			continue
		}
		g := &group{metrics: []string{m.name}, ps: ps, need: need, n: m.s.Count}
		byKey[key] = g
		out = append(out, g)
	}
	lines := make([]string, 0, len(out))
	for _, g := range out {
		lines = append(lines, fmt.Sprintf("%s %s rest on %d samples (%s; below that a percentile is the maximum)",
			strings.Join(g.ps, ", "), strings.Join(g.metrics, ", "), g.n, strings.Join(g.need, ", ")))
	}
	return lines
}

// CutShortWarning says how many outputs the server cut short of
// --output-tokens although ignore_eos was set; "" if none.
func (rep *Report) CutShortWarning() string {
	if rep.CutShort == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d successful requests were cut short of their planned output by the server although ignore_eos was set "+
		"(a context limit: prompt, chat template and output do not fit); they are not counted as good", rep.CutShort, rep.Completed)
}
