package main

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// The daemon against a mock whose every answer freezes 400 ms after its
// 8th token and otherwise flows at 1 ms a token: TPOT (100 ms) is met,
// max_itl (300 ms) is not, so no probe is good, violations are counted
// under slo="max_itl" and none under tpot, the worst gaps fill their
// histogram, and /probe?debug and the status page show the worst gap.
// No timing is asserted from above: a probe would need 6.3 s of decoding
// to miss TPOT, and it times out at 1.6 s.
func TestDaemonStalledStreamFailsMaxITL(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL, o.BatchSlowdown = mockvllm.Dist{Mean: 5 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}, 0
	o.DecodeStall = mockvllm.DecodeStall{Every: 1, For: 400 * time.Millisecond, AfterTokens: 8}
	mock := mockvllm.New(o)
	srv := httptest.NewServer(mock)
	t.Cleanup(func() { mock.Close(); srv.Close() })

	cfg := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, cfg, fmt.Sprintf(`
global: {interval: 2s, timeout: 1600ms}
modules:
  chat:
    messages: [{role: user, content: hi}]
    max_tokens: 64
    ignore_eos: true
    slo: {tpot: 100ms, max_itl: 300ms}
targets:
%s`, targetYAML("stalled", srv.URL)))
	p := startProber(t, "--config.file="+cfg)
	const sel = `{model="mock-model",module="chat",target="stalled"}`
	const slo = `llm_prober_slo_violations_total{model="mock-model",module="chat",slo=`
	p.waitFor(30*time.Second, func() bool { return p.metric(slo+`"max_itl",target="stalled"}`) >= 2 })
	if v := p.metric(slo + `"tpot",target="stalled"}`); v != 0 {
		t.Errorf("tpot violations %v, want 0", v)
	}
	if good := p.metric("llm_prober_probes_good_total" + sel); good != 0 {
		t.Errorf("good probes %v, want 0: every probe stalled past max_itl", good)
	}
	if v := p.metric(`llm_prober_slo_seconds{model="mock-model",module="chat",slo="max_itl",target="stalled"}`); v != 0.3 {
		t.Errorf("slo_seconds{slo=max_itl} %v, want 0.3", v)
	}
	if n, sum := p.metric("llm_prober_max_inter_token_latency_seconds_count"+sel), p.metric("llm_prober_max_inter_token_latency_seconds_sum"+sel); n < 1 || sum < 0.4*n {
		t.Errorf("worst-gap histogram: %v probes, sum %v s; want each at least 0.4 s", n, sum)
	}
	if _, body := p.get("/probe?target=stalled&debug=true"); !strings.Contains(body, "SLO missed: max_itl") ||
		!strings.Contains(body, "Worst gap (max_itl):") || !strings.Contains(body, "\nprobe_llm_max_inter_token_latency_seconds 0.") {
		t.Errorf("/probe?debug lacks the worst gap or the max_itl miss:\n%s", body)
	}
	if _, body := p.get("/"); !strings.Contains(body, "Worst gap p50 / p99") || !strings.Contains(body, "SLO 300ms") {
		t.Errorf("status page lacks the worst-gap column and its SLO")
	}
}
