package prober

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/llm-prober/llm-prober/internal/exposition"
)

func recordedRegistry() prometheus.Gatherer {
	reg := prometheus.NewPedanticRegistry()
	m := NewMetrics(reg)
	m.Init("vllm-a", "llama", "chat", 15*time.Second, map[string]time.Duration{"ttft": 500 * time.Millisecond, "e2el": 2 * time.Second, "max_itl": 80 * time.Millisecond})
	end := time.Unix(1700000000, 0)
	m.Record(&Result{
		ID: "abc", Target: "vllm-a", Model: "llama", Module: "chat",
		Headers: 3 * time.Millisecond, TTFT: 120 * time.Millisecond, HasTTFT: true,
		ITL:  []time.Duration{20 * time.Millisecond, 30 * time.Millisecond, 90 * time.Millisecond},
		TPOT: 45 * time.Millisecond, E2EL: 3 * time.Second, MaxITL: 90 * time.Millisecond, ContentChunks: 4,
		OutputTokens: 4, PromptTokens: 11, CachedTokens: 8, UsageReported: true,
		SLOViolations: []string{"e2el", "max_itl"},
	}, end)
	m.Record(&Result{ID: "def", Target: "vllm-a", Model: "llama", Module: "chat",
		Reason: ReasonRateLimited, Err: errors.New("HTTP 429")}, end.Add(15*time.Second))
	m.Record(&Result{ID: "ghi", Target: "vllm-a", Model: "llama", Module: "chat",
		Reason: ReasonValidation, ValidationFailures: []string{ValidatorOutputRegex}}, end.Add(30*time.Second))
	m.Skip("vllm-a", "llama", "chat", SkipConcurrency)
	return prometheus.Gatherers{reg, m}
}

// The exposition is pinned by a golden file: renaming a metric or label
// breaks dashboards and alerts, so it must be a deliberate change.
func TestMetricsGolden(t *testing.T) {
	compareGolden(t, recordedRegistry(), "testdata/metrics.golden")
}

func TestMetricsLint(t *testing.T) {
	lintMetrics(t, recordedRegistry())
}

// compareGolden compares the families of g (only the named ones, when
// families are given) with the golden file, after rewriting the file
// from g when UPDATE_GOLDEN is set.
func compareGolden(t *testing.T, g prometheus.Gatherer, golden string, families ...string) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		mfs, _ := g.Gather()
		var b strings.Builder
		for _, mf := range mfs {
			if len(families) > 0 && !slices.Contains(families, mf.GetName()) {
				continue
			}
			if err := writeText(&b, mf); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := testutil.GatherAndCompare(g, f, families...); err != nil {
		t.Error(err)
	}
}

// lintMetrics reports every problem promlint finds in the families of g
// (only the named ones, when families are given).
func lintMetrics(t *testing.T, g prometheus.Gatherer, families ...string) {
	t.Helper()
	problems, err := testutil.GatherAndLint(g, families...)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// A removed schedule's series disappear; another schedule's stay, and a
// probe that finishes after its schedule was removed does not bring it back.
func TestMetricsDelete(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	m.Init("a", "m", "chat", time.Second, nil)
	m.Init("b", "m", "chat", time.Second, nil)
	m.Delete("a", "m", "chat")
	m.Record(&Result{Target: "a", Model: "m", Module: "chat", Reason: ReasonTimeoutFirstToken}, time.Now())
	m.Skip("a", "m", "chat", SkipOverlap)
	if n, err := testutil.GatherAndCount(m, "llm_prober_probes_total"); err != nil || n != 1 {
		t.Errorf("%d probes_total series after delete (%v), want 1", n, err)
	}
	if n, err := testutil.GatherAndCount(m, "llm_prober_probe_failures_total"); err != nil || n != len(Reasons) {
		t.Errorf("%d failure series after delete (%v), want %d", n, err, len(Reasons))
	}
}

// seriesValue returns the value of the counter or gauge series of name
// with the given target, model, module (and reason) label values, or 0.
func seriesValue(t testing.TB, g prometheus.Gatherer, name string, values ...string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i, l := range []string{"target", "model", "module", "reason"}[:len(values)] {
		want[l] = values[i]
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, mt := range mf.Metric {
			for _, lp := range mt.Label {
				if v, ok := want[lp.GetName()]; ok && v != lp.GetValue() {
					continue metrics
				}
			}
			return mt.GetCounter().GetValue() + mt.GetGauge().GetValue()
		}
	}
	return 0
}

func seriesCount(t testing.TB, g prometheus.Gatherer, name string) int {
	t.Helper()
	n, err := testutil.GatherAndCount(g, name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A scraper that stops reading must not hold up probes: the exposition
// blocks on its output, but no schedule stays locked meanwhile.
func TestStalledScrapeDoesNotBlockRecord(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	benchSchedules(m, 300) // well past one buffer of text
	pr, pw := io.Pipe()
	defer pr.Close()
	go func() {
		w := exposition.NewWriter(pw, exposition.FormatText)
		m.WriteFamilies(w)
		_ = w.Flush()
	}()
	// The writer has filled its buffer and blocks in the pipe.
	if _, err := io.ReadFull(pr, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 300 {
			m.Record(&Result{Target: fmt.Sprintf("target-%05d", i), Model: "llama-3-8b", Module: "chat", Reason: ReasonTimeoutFirstToken}, time.Now())
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Record blocked behind a stalled scrape")
	}
}
