package compare

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/prober"
)

// writeGapsFile writes a run's --output-json file of n requests, 50
// inter-token gaps each, from gaps(rng, request) (ms).
func writeGapsFile(t *testing.T, name string, seed uint64, n int, gaps func(*rand.Rand) []float64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	jo, err := resultfile.NewJSONOut()
	if err != nil {
		t.Fatal(err)
	}
	defer jo.Close()
	run := &loadtest.Run{Opts: loadtest.Options{Rate: 10, Burstiness: 1}}
	for i := range n {
		var itl []time.Duration
		var sum time.Duration
		for _, g := range gaps(rng) {
			d := time.Duration(g * float64(time.Millisecond))
			itl, sum = append(itl, d), sum+d
			run.ITL.Add(int64(d))
		}
		ttft := 50 * time.Millisecond
		rec := loadtest.Record{Index: int64(i), Planned: int64(i) * 1e8, Start: int64(i) * 1e8, TTFT: int64(ttft),
			TPOT: int64(sum) / int64(len(itl)), E2EL: int64(ttft + sum), PlannedPrompt: 10, OutputTokens: int32(len(itl) + 1)}
		rec.End = rec.Start + rec.E2EL
		run.Records = append(run.Records, rec)
		jo.Add(&rec, &prober.Result{ITL: itl})
	}
	rep := summary.Summarize(run, summary.SLO{}, nil)
	rep.Workload = testWorkload
	path := filepath.Join(t.TempDir(), name)
	if err := jo.Write(path, append(rep.VLLMKeys(), summary.KV{Key: "backend", Value: "openai-chat"})); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 31: a stall in one gap of each request (the others a little
// faster, so each request's mean gap is unchanged) moves p99 ITL by
// about +16 %. Testing ITL on per-request mean gaps called that "within
// 10%"; tested on the pooled gaps, it is a significant regression.
func TestCompareITLTailRegression(t *testing.T) {
	even := func(rng *rand.Rand) []float64 {
		g := make([]float64, 50)
		for i := range g {
			g[i] = 5 + rng.Float64()
		}
		return g
	}
	const delta = 0.03 // ms taken off 49 gaps, put on the 50th
	stall := func(rng *rand.Rand) []float64 {
		g := even(rng)
		for i := range g {
			g[i] -= delta
		}
		g[rng.IntN(len(g))] += 50 * delta
		return g
	}
	base := readRun(t, writeGapsFile(t, "base.json", 1, 300, even))
	nw := readRun(t, writeGapsFile(t, "new.json", 2, 300, stall))
	ts, _ := ParseThresholds("p99_itl_ms:10%")
	c := Compare(base, nw, 0.05, ts)
	r := c.Row("p99_itl_ms")
	if r.DeltaPercent == nil || *r.DeltaPercent < 12 || *r.DeltaPercent > 22 {
		t.Fatalf("p99 ITL change: %+v", r)
	}
	if !r.Significant || !r.Regression || len(c.Regressions) != 1 {
		t.Errorf("p99 ITL %+.1f%%: significant %v, regression %v (%s, p %v)", *r.DeltaPercent, r.Significant, r.Regression, r.Test, *r.PValue)
	}
	if m := c.Row("mean_itl_ms"); m.Significant {
		t.Errorf("mean ITL unchanged, judged significant: %+v", m)
	}
	var buf bytes.Buffer
	c.WriteText(&buf)
	if !strings.Contains(buf.String(), "REGRESSION beyond 10%") {
		t.Errorf("text:\n%s", buf.String())
	}
}

// Past resultfile.MaxGaps gaps a file's gaps are not kept (memory stays
// bounded): the ITL rows go untested and the comparison says why.
func TestCompareGapsBeyondCap(t *testing.T) {
	even := func(rng *rand.Rand) []float64 {
		g := make([]float64, 50)
		for i := range g {
			g[i] = 5 + rng.Float64()
		}
		return g
	}
	path := writeGapsFile(t, "big.json", 1, 40, even)
	defer func(n int) { resultfile.MaxGaps = n }(resultfile.MaxGaps)
	resultfile.MaxGaps = 1000 // 40 requests × 50 gaps exceed it
	big := readRun(t, path)
	if !big.GapsDropped || len(big.Gaps) != 0 || len(big.ITLMean) != 40 {
		t.Fatalf("dropped %v, %d gaps kept, %d means", big.GapsDropped, len(big.Gaps), len(big.ITLMean))
	}
	c := Compare(big, big, 0.05, nil)
	if r := c.Row("p99_itl_ms"); r.Test != "none" || r.Base == nil {
		t.Errorf("p99 ITL without gaps: %+v", r)
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "ITL untested: a file holds over 1000 inter-token gaps") {
		t.Errorf("warnings: %s", w)
	}
}
