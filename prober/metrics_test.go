package prober

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func recordedRegistry() *prometheus.Registry {
	reg := prometheus.NewPedanticRegistry()
	m := NewMetrics(reg)
	m.Init("vllm-a", "llama", "chat", 15*time.Second, map[string]time.Duration{"ttft": 500 * time.Millisecond, "e2el": 2 * time.Second})
	end := time.Unix(1700000000, 0)
	m.Record(&Result{
		ID: "abc", Target: "vllm-a", Model: "llama", Module: "chat",
		Headers: 3 * time.Millisecond, TTFT: 120 * time.Millisecond, HasTTFT: true,
		ITL:  []time.Duration{20 * time.Millisecond, 30 * time.Millisecond, 90 * time.Millisecond},
		TPOT: 45 * time.Millisecond, E2EL: 3 * time.Second,
		OutputTokens: 4, PromptTokens: 11, CachedTokens: 8, UsageReported: true,
		SLOViolations: []string{"e2el"},
	}, end)
	m.Record(&Result{ID: "def", Target: "vllm-a", Model: "llama", Module: "chat",
		Reason: ReasonRateLimited, Err: errors.New("HTTP 429")}, end.Add(15*time.Second))
	m.Record(&Result{ID: "ghi", Target: "vllm-a", Model: "llama", Module: "chat",
		Reason: ReasonValidation, ValidationFailures: []string{ValidatorOutputRegex}}, end.Add(30*time.Second))
	m.Skip("vllm-a", "llama", "chat", SkipConcurrency)
	return reg
}

// The exposition is pinned by a golden file: renaming a metric or label
// breaks dashboards and alerts, so it must be a deliberate change.
func TestMetricsGolden(t *testing.T) {
	const golden = "testdata/metrics.golden"
	reg := recordedRegistry()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		mfs, _ := reg.Gather()
		var b strings.Builder
		for _, mf := range mfs {
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
	if err := testutil.GatherAndCompare(reg, f); err != nil {
		t.Error(err)
	}
}

func TestMetricsLint(t *testing.T) {
	problems, err := testutil.GatherAndLint(recordedRegistry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

// A removed schedule's series disappear; another schedule's stay.
func TestMetricsDelete(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	m.Init("a", "m", "chat", time.Second, nil)
	m.Init("b", "m", "chat", time.Second, nil)
	m.Delete("a", "m", "chat")
	if n := testutil.CollectAndCount(m.probes); n != 1 {
		t.Errorf("%d probes_total series after delete, want 1", n)
	}
	if n := testutil.CollectAndCount(m.failures); n != len(Reasons) {
		t.Errorf("%d failure series after delete, want %d", n, len(Reasons))
	}
}
