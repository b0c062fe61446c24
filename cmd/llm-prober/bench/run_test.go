package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
)

// benchDefaults is a Config with the flags' defaults.
func benchDefaults() *Config {
	return &Config{API: "chat", Rate: "inf", Burstiness: 1, NumPrompts: 1000, NumRuns: 1, Warmup: "0", Dataset: "random",
		InputTokens: 1024, OutputTokens: 128, FreshPrompts: true, Percentiles: "50,90,95,99,99.9", IgnoreEOS: true, ContinuousUsage: true,
		Timeout: 10 * time.Minute, IdleTimeout: 2 * time.Minute, Progress: "auto", ServerMetrics: true, MetricsInterval: time.Second,
		SweepSteps: 6, SweepRefine: 2, MinSamples: 1000, KneeGoodput: 99, PeakToAverage: 1, Headroom: 2, GPUsPerReplica: 1}
}

// A config that says nothing, or says something wrong, is refused before
// any request, with the flag named; nothing panics on a zero value.
func TestRunBenchRefusesBadConfigUpFront(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(*Config)
		want string
	}{
		"zero value":        {func(b *Config) { *b = Config{} }, "--percentiles"},
		"NaN burstiness":    {func(b *Config) { b.Burstiness = math.NaN() }, "--burstiness"},
		"rate junk":         {func(b *Config) { b.Rate = "fast" }, "--request-rate"},
		"sweep without SLO": {func(b *Config) { b.Sweep = true }, "--goodput"},
		"runs and a sweep":  {func(b *Config) { b.NumRuns, b.Rates, b.Goodput = 2, "1,2", "ttft:100" }, "--num-runs"},
		"both plan inputs":  {func(b *Config) { b.KneeRate, b.DailyRequests, b.PeakRPS = 4, 1e6, 20 }, "peak"},
	} {
		b := benchDefaults()
		b.URL = "http://127.0.0.1:1" // nothing listens: reaching it would fail with exit 1
		c.edit(b)
		var out, log bytes.Buffer
		code, err := Run(t.Context(), b, &out, &log)
		if code != ExitBadInput || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: exit %d, %v; want %d naming %s", name, code, err, ExitBadInput, c.want)
		}
	}
}

// --knee-rate alone plans without a server.
func TestRunBenchPlanOnly(t *testing.T) {
	b := benchDefaults()
	b.KneeRate, b.DailyRequests, b.PeakToAverage = 4, 1e6, 3
	var out, log bytes.Buffer
	code, err := Run(t.Context(), b, &out, &log)
	if code != 0 || err != nil || !strings.Contains(out.String(), "Capacity plan") {
		t.Fatalf("exit %d, %v:\n%s", code, err, out.String())
	}
}

func TestRunJSONPath(t *testing.T) {
	for _, c := range []struct {
		path string
		i    int
		want string
	}{{"", 1, ""}, {"run.json", 2, "run.run2.json"}, {"run.json", 0, "run.runN.json"}, {"dir.v1/out", 3, "dir.v1/out.run3"}} {
		if got := runJSONPath(c.path, c.i); got != c.want {
			t.Errorf("runJSONPath(%q, %d) = %q, want %q", c.path, c.i, got, c.want)
		}
	}
}

// An open-loop point runs at least --min-samples requests, by count or by
// duration at its rate; an unbounded rate cannot be sized by duration.
func TestSizeForP99(t *testing.T) {
	for _, c := range []struct {
		in   loadtest.Options
		n    int
		want loadtest.Options
	}{
		{loadtest.Options{NumPrompts: 100}, 1000, loadtest.Options{NumPrompts: 1000}},
		{loadtest.Options{NumPrompts: 5000}, 1000, loadtest.Options{NumPrompts: 5000}},
		{loadtest.Options{Duration: time.Second, Rate: 10}, 1000, loadtest.Options{Duration: 100 * time.Second, Rate: 10}},
		{loadtest.Options{Duration: time.Second, Rate: math.Inf(1)}, 1000, loadtest.Options{Duration: time.Second, Rate: math.Inf(1)}},
		{loadtest.Options{NumPrompts: 100}, 0, loadtest.Options{NumPrompts: 100}},
	} {
		o := c.in
		sizeForP99(&o, c.n)
		if o.NumPrompts != c.want.NumPrompts || o.Duration != c.want.Duration {
			t.Errorf("sizeForP99(%+v, %d): %d prompts, %s; want %d, %s", c.in, c.n, o.NumPrompts, o.Duration, c.want.NumPrompts, c.want.Duration)
		}
	}
}

// Compare refuses bad settings and files it cannot read with the input
// named, before comparing anything.
func TestRunCompareRefusesBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	junk := filepath.Join(t.TempDir(), "junk.json")
	if err := os.WriteFile(junk, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		cfg  CompareConfig
		want string
	}{
		"NaN alpha":     {CompareConfig{Base: missing, New: missing, Alpha: math.NaN()}, "--alpha"},
		"alpha 1":       {CompareConfig{Base: missing, New: missing, Alpha: 1}, "--alpha"},
		"bad threshold": {CompareConfig{Base: missing, New: missing, Alpha: 0.05, MaxRegression: "p99_ttft_ms"}, "p99_ttft_ms"},
		"missing file":  {CompareConfig{Base: missing, New: missing, Alpha: 0.05}, "missing.json"},
		"junk file":     {CompareConfig{Base: junk, New: junk, Alpha: 0.05}, "junk.json"},
	} {
		var out, log bytes.Buffer
		code, err := RunCompare(&c.cfg, &out, &log)
		if code != ExitBadInput || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: exit %d, %v; want %d naming %s", name, code, err, ExitBadInput, c.want)
		}
	}
}

// Run drives a run and a sweep from a Config alone, no flags
// parsed: the reports, the JSON and CSV files, and the exit code.
func TestRunBenchAgainstMock(t *testing.T) {
	_, tg, _ := mocktarget.Start(t, mocktarget.FixedMock())
	dir := t.TempDir()
	b := benchDefaults()
	b.URL, b.Rate, b.NumPrompts, b.InputTokens, b.OutputTokens = tg.URL, "200", 20, 16, 4
	b.Progress, b.ServerMetrics, b.Goodput = "off", false, "ttft:10000" // any TTFT of a loaded machine is good
	b.OutputJSON, b.OutputCSV = filepath.Join(dir, "run.json"), filepath.Join(dir, "run.csv")
	var out, log bytes.Buffer
	if code, err := Run(t.Context(), b, &out, &log); code != 0 || err != nil {
		t.Fatalf("run: exit %d, %v\n%s\n%s", code, err, out.String(), log.String())
	}
	var run struct {
		Completed int `json:"completed"`
	}
	raw, err := os.ReadFile(b.OutputJSON)
	if err == nil {
		err = json.Unmarshal(raw, &run)
	}
	if err != nil || run.Completed != 20 {
		t.Errorf("run JSON: %v, %d completed", err, run.Completed)
	}
	if csv, err := os.ReadFile(b.OutputCSV); err != nil || strings.Count(string(csv), "\n") != 21 {
		t.Errorf("run CSV: %v, %d lines, want a header and 20 rows", err, strings.Count(string(csv), "\n"))
	}

	b.OutputCSV, b.Rates, b.MinSamples, b.OutputJSON = "", "20,40", 0, filepath.Join(dir, "sweep.json")
	out.Reset()
	// Both rates held: the knee is above 40 req/s, a lower bound (issue 31).
	if code, err := Run(t.Context(), b, &out, &log); code != ExitFailed || err == nil || !strings.Contains(err.Error(), "knee above 40.00 req/s (lower bound)") ||
		!strings.Contains(out.String(), "Rate sweep") {
		t.Fatalf("sweep: exit %d, %v\n%s\n%s", code, err, out.String(), log.String())
	}
	var sw struct {
		Knee   float64          `json:"llm_prober_knee_lower_bound_request_rate"`
		Points []map[string]any `json:"points"`
	}
	raw, err = os.ReadFile(b.OutputJSON)
	if err == nil {
		err = json.Unmarshal(raw, &sw)
	}
	if err != nil || sw.Knee != 40 || len(sw.Points) < 2 {
		t.Errorf("sweep JSON: %v, knee %g, %d points", err, sw.Knee, len(sw.Points))
	}
}
