package compare

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/prober"
)

// writeRunFile writes a --output-json file as a run does (JSONOut), from
// N requests whose TTFT is ttftMs plus up to 20 ms of noise; every
// failEvery-th fails (0: none). Two warm-up requests with huge TTFTs
// must not count.
func writeRunFile(t *testing.T, name string, seed uint64, n int, ttftMs float64, failEvery int, slo summary.SLO, workload string) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	jo, err := resultfile.NewJSONOut()
	if err != nil {
		t.Fatal(err)
	}
	defer jo.Close()
	run := &loadtest.Run{Opts: loadtest.Options{Rate: 10, Burstiness: 1}}
	for i := range n + 2 {
		ttft := time.Duration((ttftMs + 20*rng.Float64()) * float64(time.Millisecond))
		itl := time.Duration((5 + rng.Float64()) * float64(time.Millisecond))
		rec := loadtest.Record{Index: int64(i), Planned: int64(i) * 1e8, Start: int64(i) * 1e8, TTFT: int64(ttft),
			TPOT: int64(itl), E2EL: int64(ttft + 4*itl), PlannedPrompt: 10, OutputTokens: 5, Warmup: i < 2}
		rec.End = rec.Start + rec.E2EL
		res := &prober.Result{ITL: []time.Duration{itl, itl, itl, itl}}
		if rec.Warmup {
			rec.TTFT = int64(time.Hour)
		}
		if failEvery > 0 && i%failEvery == 0 && !rec.Warmup {
			rec.Reason, rec.TTFT, rec.TPOT, rec.E2EL, rec.OutputTokens = prober.ReasonRateLimited, 0, 0, 0, 0
			res = &prober.Result{Err: os.ErrDeadlineExceeded}
		} else if !rec.Warmup {
			for range 4 {
				run.ITL.Add(int64(itl))
			}
		}
		run.Records = append(run.Records, rec)
		jo.Add(&rec, res)
	}
	rep := summary.Summarize(run, slo, nil)
	rep.Workload = workload
	head := append(rep.VLLMKeys(), summary.KV{Key: "backend", Value: "openai-chat"}, summary.KV{Key: "model_id", Value: "m-" + workload[len(workload)-1:]})
	path := filepath.Join(t.TempDir(), name)
	if err := jo.Write(path, head); err != nil {
		t.Fatal(err)
	}
	return path
}

func readRun(t *testing.T, path string) *resultfile.RunFile {
	t.Helper()
	rf, err := resultfile.ReadRunFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return rf
}

const testWorkload = "synthetic: 10 input tokens, 5 output tokens, seed 1"

// A TTFT 30 ms higher out of 20 ms of noise is a significant regression
// of p90 and the mean (batch means), beyond 10 % (p99 of 400 requests:
// its interval's upper end is often unbounded, see TestSimulatedGateFamilies); the same
// run against itself is no regression at any threshold.
func TestCompareRegression(t *testing.T) {
	slo := summary.SLO{TTFT: 125 * time.Millisecond}
	base := readRun(t, writeRunFile(t, "base.json", 1, 400, 100, 0, slo, testWorkload))
	slow := readRun(t, writeRunFile(t, "new.json", 2, 400, 130, 10, slo, strings.Replace(testWorkload, "seed 1", "seed 2", 1)))
	if base.Measured != 400 || len(base.TTFT) != 400 || slow.Failed != 40 || len(slow.TTFT) != 360 {
		t.Fatalf("read %d measured, %d TTFTs; new %d failed, %d TTFTs", base.Measured, len(base.TTFT), slow.Failed, len(slow.TTFT))
	}
	ts, err := ParseThresholds("p90_ttft_ms:10%, mean_ttft:10%,goodput:1,failed_percent:1,p99_e2el_ms:1000")
	if err != nil {
		t.Fatal(err)
	}
	c := Compare(base, slow, 0.05, ts)
	if len(c.WorkloadDiffs) != 0 {
		t.Errorf("a new seed is the same workload: %v", c.WorkloadDiffs)
	}
	if len(c.Notes) != 1 || c.Notes[0] != "model_id: m-1 vs m-2" {
		t.Errorf("notes: %q", c.Notes)
	}
	var got []string
	for _, r := range c.Regressions {
		got = append(got, strings.Fields(r)[0])
	}
	if want := "p90_ttft_ms: mean_ttft_ms: goodput: failed_percent:"; strings.Join(got, " ") != want {
		t.Errorf("regressions %q, want %s", got, want)
	}
	p90 := c.Row("p90_ttft_ms")
	if p90.Test != "batch-means" || !p90.Significant || !p90.Worse || *p90.CILow < 10 || *p90.DeltaPercent < 10 {
		t.Errorf("p90 TTFT row: %+v", p90)
	}
	if r := c.Row("mean_itl_ms"); r.Test != "batch-means" || r.Base == nil || r.Significant {
		t.Errorf("ITL unchanged: %+v", r)
	}
	if r := c.Row("goodput"); *r.Base != 100 || *r.New > 40 || r.Test != "two-proportion" {
		t.Errorf("goodput row: %+v", r)
	}
	var buf bytes.Buffer
	c.WriteText(&buf)
	for _, want := range []string{"Note: the runs differ in model_id", "p99_ttft_ms (ms)", "REGRESSION beyond 10%", "within 1000", "Regressions:"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}

	same := Compare(base, base, 0.05, ts)
	if len(same.Regressions) != 0 {
		t.Errorf("a run against itself: %v", same.Regressions)
	}
	for _, r := range same.Rows {
		if r.Significant {
			t.Errorf("a run against itself: %s significant", r.Key)
		}
	}
}

// Noise alone (the same distribution, another seed) is not a regression
// even at a threshold it crosses by chance.
func TestCompareNoiseIsNotRegression(t *testing.T) {
	base := readRun(t, writeRunFile(t, "a.json", 3, 300, 100, 0, summary.SLO{}, testWorkload))
	nw := readRun(t, writeRunFile(t, "b.json", 4, 300, 100, 0, summary.SLO{}, testWorkload))
	ts, _ := ParseThresholds("p50_ttft_ms:0,p99_ttft_ms:0,mean_e2el_ms:0")
	c := Compare(base, nw, 0.01, ts)
	if len(c.Regressions) != 0 {
		t.Errorf("noise judged a regression: %v", c.Regressions)
	}
	if r := c.Row("goodput"); r.Base != nil {
		t.Errorf("goodput without SLOs: %+v", r)
	}
}

func TestCompareWorkloadDiffs(t *testing.T) {
	a := readRun(t, writeRunFile(t, "a.json", 1, 5, 100, 0, summary.SLO{}, testWorkload))
	b := readRun(t, writeRunFile(t, "b.json", 1, 5, 100, 0, summary.SLO{TTFT: time.Second}, strings.Replace(testWorkload, "5 output", "50 output", 1)))
	d := strings.Join(resultfile.WorkloadDiffs(a, b), "\n")
	if !strings.Contains(d, "llm_prober_workload: "+testWorkload) || !strings.Contains(d, "llm_prober_goodput_slo: (none) vs ttft:1000") {
		t.Errorf("differences:\n%s", d)
	}
}

func TestParseThresholds(t *testing.T) {
	ts, err := ParseThresholds("p99_ttft:10%,goodput:1")
	if err != nil || len(ts) != 2 || ts[0] != (Threshold{"p99_ttft_ms", 10, true}) || ts[1] != (Threshold{"goodput", 1, false}) {
		t.Errorf("%+v %v", ts, err)
	}
	for in, want := range map[string]string{
		"p99_ttfb_ms:10%":  "valid keys: mean_ttft_ms, p50_ttft_ms",
		"p99_ttft_ms":      "want key:threshold",
		"p99_ttft_ms:ten%": "not a number",
		"goodput:-1":       "not a number ≥ 0",
	} {
		if _, err := ParseThresholds(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func TestReadRunFileRejects(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"sweep.json":  `{"knee_goodput_percent": 99, "points": []}`,
		"runs.json":   `{"num_runs": 3, "seeds": [0, 1, 2], "metrics": []}`,
		"old.json":    `{"completed": 3, "ttfts": [0.1, 0.2, 0.3]}`,
		"array.json":  `[1, 2]`,
		"broken.json": `{"completed": 3, "requests": [{"ttft": 0.1}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := resultfile.ReadRunFile(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A new run where every request failed has no TTFT or ITL to compare:
// that is a regression of a gated latency, not a metric to skip; the
// other way round (a failed base) is none.
func TestCompareEverythingFailed(t *testing.T) {
	ok := readRun(t, writeRunFile(t, "ok.json", 1, 50, 100, 0, summary.SLO{}, testWorkload))
	dead := readRun(t, writeRunFile(t, "dead.json", 2, 50, 100, 1, summary.SLO{}, testWorkload))
	if dead.Failed != 50 || len(dead.TTFT) != 0 || !dead.Has("p99_ttft_ms") || !dead.Has("mean_itl_ms") || dead.Has("goodput") {
		t.Fatalf("all-failed run: %d failed, %d TTFTs", dead.Failed, len(dead.TTFT))
	}
	ts, _ := ParseThresholds("p99_ttft_ms:10%,mean_itl_ms:10%")
	c := Compare(ok, dead, 0.05, ts)
	if len(c.Regressions) != 2 || !strings.Contains(c.Regressions[0], "no request to measure it on") {
		t.Errorf("all failed: %q", c.Regressions)
	}
	if r := c.Row("mean_itl_ms"); r.New != nil {
		t.Errorf("ITL of a run without gaps: %g, want none", *r.New)
	}
	if back := Compare(dead, ok, 0.05, ts); len(back.Regressions) != 0 {
		t.Errorf("recovery judged a regression: %q", back.Regressions)
	}
}
