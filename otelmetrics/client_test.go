package otelmetrics

import (
	"context"
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prober"
)

// probeConfig is a one-target config probing the mock at tg, pushing to
// endpoint (none: off).
func probeConfig(tg *config.Target, endpoint string) *config.Config {
	tg.Backend = "vllm"
	tg.Modules = []string{"chat", "text"}
	return &config.Config{
		Targets: []*config.Target{tg},
		Modules: map[string]*config.Module{
			"chat": {Name: "chat", API: config.APIChat, MaxTokens: 8, IgnoreEOS: true, Messages: []config.Message{{Role: "user", Content: "hi"}}},
			"text": {Name: "text", API: config.APICompletions, MaxTokens: 4, IgnoreEOS: true, Prompt: "hi"},
		},
		OTLPMetrics: config.OTLPMetrics{Endpoint: endpoint, Interval: model.Duration(time.Hour)},
	}
}

// Real probes of the mock, observed as the daemon does, arrive as the
// GenAI client histograms: one duration per probe with its attributes,
// the sums the probes' own figures, one chunk gap per ITL gap, the
// tokens by type, the advised bounds, the schema URL.
func TestProbesPushedAsGenAIClientMetrics(t *testing.T) {
	rc := newReceiver(t)
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	cfg := probeConfig(tg, rc.url())
	var p Probes
	p.Apply(cfg, nil, "test", log.NewNopLogger())
	var e2el, ttft float64
	var gaps, outTokens, inTokens int
	for i := range 6 {
		m := cfg.Modules[tg.Modules[i%2]]
		r := prober.Run(context.Background(), client, tg, m, "p", "test")
		if !r.Success() {
			t.Fatalf("probe failed: %v", r.Err)
		}
		e2el += r.E2EL.Seconds()
		ttft += r.TTFT.Seconds()
		gaps += len(r.ITL)
		outTokens += r.OutputTokens
		if r.UsageReported {
			inTokens += r.PromptTokens
		}
		p.Observe(r)
	}
	p.Stop(context.Background())

	dur := rc.points("gen_ai.client.operation.duration")
	if n, s := totals(dur, nil); n != 6 || math.Abs(s-e2el) > 1e-9 {
		t.Errorf("operation.duration: count %d sum %v, want 6 and the probes' E2EL %v", n, s, e2el)
	}
	if n, _ := totals(dur, map[string]string{"gen_ai.operation.name": "chat", "llm_prober.module": "chat"}); n != 3 {
		t.Errorf("chat probes: %d, want 3", n)
	}
	if n, _ := totals(dur, map[string]string{"gen_ai.operation.name": "text_completion", "llm_prober.module": "text"}); n != 3 {
		t.Errorf("text_completion probes: %d, want 3", n)
	}
	a := attrs(dur[0])
	addr, port := Server(tg.URL)
	for k, v := range map[string]string{"gen_ai.provider.name": "vllm", "gen_ai.request.model": tg.Model,
		"server.address": addr, "server.port": strconv.Itoa(port), "llm_prober.target": "mock"} {
		if a[k] != v {
			t.Errorf("attribute %s = %q, want %q (all: %v)", k, a[k], v, a)
		}
	}
	if _, ok := a["error.type"]; ok {
		t.Errorf("error.type on a success: %v", a)
	}
	if !slices.Equal(dur[0].GetExplicitBounds(), durationBounds) {
		t.Errorf("bounds %v, want the advised %v", dur[0].GetExplicitBounds(), durationBounds)
	}
	if n, s := totals(rc.points("gen_ai.client.operation.time_to_first_chunk"), nil); n != 6 || math.Abs(s-ttft) > 1e-9 {
		t.Errorf("time_to_first_chunk: count %d sum %v, want 6 and %v", n, s, ttft)
	}
	if n, _ := totals(rc.points("gen_ai.client.operation.time_per_output_chunk"), nil); n != uint64(gaps) || gaps == 0 {
		t.Errorf("time_per_output_chunk: %d points, want one per chunk gap (%d)", n, gaps)
	}
	tok := rc.points("gen_ai.client.token.usage")
	if n, s := totals(tok, map[string]string{"gen_ai.token.type": "output"}); n != 6 || int(s) != outTokens {
		t.Errorf("output tokens: count %d sum %v, want 6 and %d", n, s, outTokens)
	}
	if _, s := totals(tok, map[string]string{"gen_ai.token.type": "input"}); int(s) != inTokens || inTokens == 0 {
		t.Errorf("input tokens: sum %v, want %d", s, inTokens)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if got := rc.last[0].GetSchemaUrl(); got != "https://opentelemetry.io/schemas/"+ConventionsVersion {
		t.Errorf("resource schema URL %q", got)
	}
}

// A failed probe carries error.type, our reason, on the duration only.
func TestFailedProbeCarriesErrorType(t *testing.T) {
	rc := newReceiver(t)
	o := mocktarget.FixedMock()
	o.Faults = mockvllm.FaultRates{mockvllm.FaultError500: 1}
	_, tg, client := mocktarget.Start(t, o)
	cfg := probeConfig(tg, rc.url())
	var p Probes
	p.Apply(cfg, nil, "test", log.NewNopLogger())
	r := prober.Run(context.Background(), client, tg, cfg.Modules["chat"], "p", "test")
	if r.Success() {
		t.Fatal("the mock was told to fail every request")
	}
	p.Observe(r)
	p.Stop(context.Background())
	dur := rc.points("gen_ai.client.operation.duration")
	if n, _ := totals(dur, map[string]string{"error.type": string(r.Reason)}); n != 1 {
		t.Errorf("no duration with error.type %q: %v", r.Reason, dur)
	}
	if n, _ := totals(rc.points("gen_ai.client.token.usage"), nil); n != 0 {
		t.Errorf("a failed probe reported %d token counts", n)
	}
}

// Without an otlp_metrics section nothing is pushed, whatever is probed.
func TestOffByDefault(t *testing.T) {
	rc := newReceiver(t)
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	cfg := probeConfig(tg, "")
	var p Probes
	p.Apply(cfg, nil, "test", log.NewNopLogger())
	if p.cur.Load() != nil {
		t.Fatal("a Meter runs without an endpoint")
	}
	p.Observe(prober.Run(context.Background(), client, tg, cfg.Modules["chat"], "p", "test"))
	p.Stop(context.Background())
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.pushes != 0 {
		t.Errorf("%d pushes with the exporter off", rc.pushes)
	}
}

// With backend auto, gen_ai.provider.name is the backend the collector
// detected from the target's /metrics (mockvllm's vllm: families), not
// unknown.
func TestAutoBackendProviderDetected(t *testing.T) {
	rc := newReceiver(t)
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	cfg := probeConfig(tg, rc.url())
	tg.Backend = backend.Auto
	tg.ServerMetrics.Interval, tg.ServerMetrics.Timeout = model.Duration(time.Second), model.Duration(time.Second) // the first scrape within a second
	servers := collector.NewManager(log.NewNopLogger())
	defer servers.Stop()
	servers.Apply(cfg.Targets)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) { // the first scrape
		if _, ok := servers.Backend(tg.Name); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no scrape of the mock's /metrics within a minute")
		}
	}
	p := Probes{Detect: servers.Backend}
	p.Apply(cfg, nil, "test", log.NewNopLogger())
	r := prober.Run(context.Background(), client, tg, cfg.Modules["chat"], "p", "test")
	p.Observe(r)
	p.Stop(context.Background())
	dur := rc.points("gen_ai.client.operation.duration")
	if len(dur) != 1 || attrs(dur[0])["gen_ai.provider.name"] != "vllm" {
		t.Fatalf("points %v, want one with gen_ai.provider.name vllm", dur)
	}
}
