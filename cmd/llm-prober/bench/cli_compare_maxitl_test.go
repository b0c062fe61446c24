package bench

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// stallMock serves the mock with a fast, even decode; stallEvery > 0
// freezes every stallEvery-th answer for 150 ms after its third token.
func stallMock(t *testing.T, stallEvery int) string {
	t.Helper()
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 5 * time.Millisecond}, mockvllm.Dist{Mean: 2 * time.Millisecond}
	o.BatchSlowdown, o.PrefixCacheHitRate = 0, 0
	o.DecodeStall = mockvllm.DecodeStall{Every: stallEvery, For: 150 * time.Millisecond, AfterTokens: 3}
	s := mockvllm.New(o)
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	return ts.URL
}

// bench compare judges worst gaps: a run against a server that stalls
// every other answer for 150 ms is a significant max_itl regression
// (and lower SLO attainment under max_itl:100, which compare recounts
// from each request's worst gap), while a run against itself is not.
func TestBenchCompareWorstGap(t *testing.T) {
	dir := t.TempDir()
	runTo := func(url, file string) string {
		path := filepath.Join(dir, file)
		if code, stdout, log := benchCLI(t, "--url", url, "--concurrency", "4", "--num-prompts", "40", "--input-tokens", "8",
			"--output-tokens", "8", "--ignore-eos", "--goodput", "max_itl:100", "--progress", "off", "--no-server-metrics",
			"--output-json", path); code != 0 {
			t.Fatalf("bench: exit %d\n%s%s", code, stdout, log)
		}
		return path
	}
	base, stalled := runTo(stallMock(t, 0), "base.json"), runTo(stallMock(t, 2), "stalled.json")
	cmpJSON := filepath.Join(dir, "cmp.json")
	code, stdout, log := compareCLI(t, "--max-regression", "mean_max_itl_ms:50%,goodput:10", "--output-json", cmpJSON, base, stalled)
	if code != ExitFailOn || !strings.Contains(stdout, "mean_max_itl_ms") {
		t.Errorf("stalls: exit %d, want %d\n%s%s", code, ExitFailOn, stdout, log)
	}
	var res struct {
		Regressions []string
		Metrics     []struct {
			Key         string
			Base, New   *float64
			Test        string
			Significant bool
			Worse       bool
			Regression  bool
		}
	}
	raw, err := os.ReadFile(cmpJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, m := range res.Metrics {
		switch m.Key {
		case "mean_max_itl_ms", "p90_max_itl_ms", "p99_max_itl_ms":
			floor := 150.0 // half the requests stalled: the mean is about half
			if m.Key == "mean_max_itl_ms" {
				floor = 50
			}
			// 40 requests bound no tail percentile: p90 and p99 are
			// measured, not significant (their upper ends are unbounded).
			if m.Test != "batch-means" || m.Significant != (m.Key == "mean_max_itl_ms") || !m.Worse || m.New == nil || *m.New < floor || *m.Base >= 100 {
				t.Errorf("%s: %+v, want a significant rise to %g ms or more (base %v, new %v)", m.Key, m, floor, deref(m.Base), deref(m.New))
			}
		case "goodput": // SLO attainment under max_itl:100
			if !m.Significant || !m.Worse || *m.Base != 100 || *m.New > 60 {
				t.Errorf("attainment: base %v, new %v, significant %v: the stalled requests must miss max_itl", deref(m.Base), deref(m.New), m.Significant)
			}
		}
		got[m.Key] = m.Regression
	}
	if !got["mean_max_itl_ms"] || !got["goodput"] || len(res.Regressions) != 2 {
		t.Errorf("regressions %q", res.Regressions)
	}

	code, stdout, log = compareCLI(t, "--max-regression", "mean_max_itl_ms:50%,goodput:10", "--output-json", cmpJSON, base, base)
	if code != 0 {
		t.Errorf("base against itself: exit %d\n%s%s", code, stdout, log)
	}
	raw, err = os.ReadFile(cmpJSON)
	if err != nil {
		t.Fatal(err)
	}
	res.Metrics = nil
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Metrics {
		if strings.HasSuffix(m.Key, "_max_itl_ms") && (m.Significant || m.Base == nil) {
			t.Errorf("%s against itself: %+v", m.Key, m)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
