package merge

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/prober"
)

// stallRecords is one run's requests: every 7th stalls mid-answer, every
// 11th times out while decoding with its last gap still open (its
// closed gaps are all short), every 13th is cut off by the run's end
// mid-stall. Their gaps, by index.
func stallRecords() ([]loadtest.Record, map[int64][]time.Duration) {
	var recs []loadtest.Record
	gaps := map[int64][]time.Duration{}
	for k := range int64(120) {
		at := k * 5_000_000
		itl := []time.Duration{20 * time.Millisecond, time.Duration(21_000_000 + k*13_000), 19 * time.Millisecond}
		rec := loadtest.Record{Index: k, Planned: at, Start: at + 40_000, End: at + 400_000_000,
			TTFT: 100_000_000 + k*100_000, TPOT: 25_000_000, E2EL: 390_000_000,
			PlannedPrompt: 64, PromptTokens: 64, PlannedOutput: 4, OutputTokens: 4}
		worst := slices.Max(itl)
		switch {
		case k%13 == 5:
			rec.Reason, rec.TPOT, rec.E2EL, rec.OutputTokens = loadtest.ReasonCancelled, 0, 0, 2
			itl, worst = itl[:1], 900*time.Millisecond+time.Duration(k)*time.Microsecond
		case k%11 == 3:
			rec.Reason, rec.TPOT, rec.E2EL, rec.OutputTokens = prober.ReasonTimeoutDecode, 0, 0, 3
			itl, worst = itl[:2], 1500*time.Millisecond+time.Duration(k)*time.Microsecond
		case k%7 == 0:
			itl[1] = 700*time.Millisecond + time.Duration(k)*time.Microsecond
			worst = itl[1]
		}
		rec.MaxGapUs, rec.ITLCount = loadtest.GapUs(worst), int32(len(itl))
		recs, gaps[k] = append(recs, rec), itl
	}
	return recs, gaps
}

// A merge keeps each request's worst gap as the shard measured it, the
// gap left open by a timeout or a cut-off included: its max_itl
// percentiles, SLO attainment, misses and --fail-on are the single
// run's.
func TestMergeKeepsWorstGaps(t *testing.T) {
	recs, gaps := stallRecords()
	dir, n := t.TempDir(), 3
	spec := loadtest.Spec{API: "chat", Rate: "200", Burstiness: 1, NumPrompts: len(recs), Seed: 1, Workload: "random 64→4"}
	var paths []string
	for i := range n {
		jo, err := resultfile.NewJSONOut()
		if err != nil {
			t.Fatal(err)
		}
		for k := range recs {
			if k%n == i {
				res := &prober.Result{ITL: gaps[recs[k].Index]}
				if !recs[k].Success() {
					res.Err = fmt.Errorf("%s", recs[k].Reason)
				}
				jo.Add(&recs[k], res)
			}
		}
		m := Manifest{Index: i, Count: n, StartAt: time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC), Clock: shard.Clock{Source: "injected"},
			Spec: spec, Decide: Decide{Goodput: "ttft:500 max_itl:300", Percentiles: "50,90,99"}}
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if err := jo.Write(p, []summary.KV{{Key: Key, Value: m}}); err != nil {
			t.Fatal(err)
		}
		jo.Close()
		paths = append(paths, p)
	}
	res, err := Read(t.Context(), paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	single := *res.Run
	single.Records = slices.Clone(recs)
	slices.SortStableFunc(single.Records, func(a, b loadtest.Record) int { return int(a.End - b.End) })
	slo, err := summary.ParseSLO("ttft:500 max_itl:300")
	if err != nil {
		t.Fatal(err)
	}
	ps := []float64{50, 90, 99}
	one, merged := summary.Summarize(&single, slo, ps), summary.Summarize(res.Run, slo, ps)
	if one.MaxITL.Count == 0 || one.MissedBy["max_itl"] == 0 || one.GoodputPercent >= 90 {
		t.Fatalf("the single run shows no stall: %+v, missed %v, attainment %g", one.MaxITL, one.MissedBy, one.GoodputPercent)
	}
	for _, p := range ps {
		if a, b := one.MaxITL.Value(p), merged.MaxITL.Value(p); a != b {
			t.Errorf("p%g max_itl: single %g ms, merged %g ms", p, a, b)
		}
	}
	if one.LongestGap != merged.LongestGap || one.MissedBy["max_itl"] != merged.MissedBy["max_itl"] || one.GoodputPercent != merged.GoodputPercent {
		t.Errorf("single: longest %g, missed %d, attainment %g; merged: %g, %d, %g", one.LongestGap, one.MissedBy["max_itl"], one.GoodputPercent,
			merged.LongestGap, merged.MissedBy["max_itl"], merged.GoodputPercent)
	}
	for _, cond := range []string{"p99_max_itl>500", "attainment<85"} {
		c, err := summary.ParseCondition(cond)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Resolve(ps, slo); err != nil {
			t.Fatal(err)
		}
		h1, v1, err1 := c.Check(one)
		h2, v2, err2 := c.Check(merged)
		if err1 != nil || err2 != nil || h1 != h2 || v1 != v2 || !h1 {
			t.Errorf("--fail-on %s: single %v (%g, %v), merged %v (%g, %v)", cond, h1, v1, err1, h2, v2, err2)
		}
	}
}
