package summary

import (
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// turnCap is the last turn reported on its own; later turns share a row.
const turnCap = 10

// TurnStats are the measured requests of one turn index of a multi-turn
// run: TTFT by turn shows what the prefix cache gives the growing history.
type TurnStats struct {
	Turn      int  // 1-based
	AndLater  bool // the row also holds every later turn
	Requests  int
	Completed int
	TTFT      stats.Stats
	// CachedPercent is the share of the server's prompt tokens it served
	// from its prefix cache (where usage reports them).
	CachedPercent float64
}

// summarizeTurns fills rep.Turns for a multi-turn run, TTFT on the
// report's basis: from the schedule when goodput counts from it, so the
// table and goodput never disagree about the same requests.
func summarizeTurns(r *loadtest.Run, rep *Report, ps []float64) {
	if r.Opts.Sessions() == nil {
		return
	}
	sched := rep.Basis == BasisSchedule
	type acc struct {
		ttft           []float64
		n, ok          int
		prompt, cached int
	}
	var rows [turnCap]acc
	last := 0
	for i := range r.Records {
		rec := &r.Records[i]
		if rec.Warmup || rec.Turn < 1 {
			continue
		}
		k := min(int(rec.Turn), turnCap) - 1
		last = max(last, k)
		a := &rows[k]
		a.n++
		if rec.Success() {
			a.ok++
			var wait int64
			if sched {
				wait = rec.Start - rec.Planned
			}
			a.ttft = append(a.ttft, Ms(rec.TTFT+wait))
			a.prompt += int(rec.PromptTokens)
			a.cached += int(rec.CachedTokens)
		}
	}
	for k := 0; k <= last; k++ {
		a := &rows[k]
		t := TurnStats{Turn: k + 1, AndLater: k == turnCap-1, Requests: a.n, Completed: a.ok, TTFT: stats.ExactStats(a.ttft, ps)}
		if a.prompt > 0 {
			t.CachedPercent = 100 * float64(a.cached) / float64(a.prompt)
		}
		rep.Turns = append(rep.Turns, t)
	}
}

// turnKeys are the JSON keys of a multi-turn run.
func (rep *Report) turnKeys() []KV {
	if len(rep.Turns) == 0 {
		return nil
	}
	out := make([]map[string]any, 0, len(rep.Turns))
	for _, t := range rep.Turns {
		out = append(out, map[string]any{"turn": t.Turn, "and_later": t.AndLater, "requests": t.Requests,
			"completed": t.Completed, "ttft_ms": statsMap(t.TTFT), "cached_prompt_percent": t.CachedPercent})
	}
	return []KV{{"llm_prober_turns", out}, {"llm_prober_turns_ttft_basis", rep.Basis}}
}
