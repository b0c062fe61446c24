package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/promapi"
	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/internal/testutil/e2ekit"
)

// The GenAI metrics as Prometheus stores them after its own OTLP
// translation (names with unit suffixes, attributes as labels). Probes
// and bench requests push to the pinned Prometheus's OTLP receiver; what
// it stores agrees with the daemon's own llm_prober_* series and with
// bench's --output-json.
func TestOTLPMetricsIntoPrometheus(t *testing.T) {
	requireE2E(t)
	dir := t.TempDir()
	bin := buildProber(t, dir)
	promBin := prometheusBinary(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	mockAddr, _ := startMock(t, bin, "--ttft", "20ms", "--itl", "5ms")

	proberAddr, promAddr := testutil.FreeAddr(t), testutil.FreeAddr(t)
	promCfg := filepath.Join(dir, "prometheus.yml")
	testutil.WriteFile(t, promCfg, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"+
		strings.ReplaceAll(e2ekit.ProberScrapeJob, "{{PROBER}}", proberAddr))
	prom := testutil.Start(t, "prometheus", promBin, "--config.file", promCfg, "--web.enable-otlp-receiver",
		"--storage.tsdb.path", filepath.Join(dir, "tsdb"), "--web.listen-address", promAddr)
	testutil.WaitHTTP(t, prom, "http://"+promAddr+"/-/ready", 60*time.Second)
	api := promAPI{promapi.Client{Base: "http://" + promAddr}}
	otlp := "http://" + promAddr + "/api/v1/otlp/v1/metrics"

	// Probes every 4 s, pushes and scrapes every second: between two
	// probes both sides settle on the same totals.
	cfg := "global:\n  interval: 4s\n  timeout: 3s\nmodules:\n" + e2ekit.ChatModule + `targets:
  - name: mock-otlp
    url: "http://` + mockAddr + `"
    model: mock-model
    backend: vllm
    modules: [chat]
    server_metrics:
      enabled: true
      interval: 1s
otlp_metrics:
  endpoint: ` + otlp + `
  interval: 1s
`
	testutil.WriteFile(t, filepath.Join(dir, "llm-prober.yml"), cfg)
	prober := testutil.Start(t, "llm-prober", bin, "--config.file", filepath.Join(dir, "llm-prober.yml"), "--web.listen-address", proberAddr)
	testutil.WaitHTTP(t, prober, "http://"+proberAddr+"/-/ready", 30*time.Second)

	// Each pair: the daemon's own series, then the translated one.
	pairs := [][2]string{
		{`sum(llm_prober_probes_total{target="mock-otlp"})`,
			`sum(gen_ai_client_operation_duration_seconds_count{job="llm-prober",llm_prober_target="mock-otlp"})`},
		{`sum(llm_prober_e2e_latency_seconds_sum{target="mock-otlp"})`,
			`sum(gen_ai_client_operation_duration_seconds_sum{job="llm-prober",llm_prober_target="mock-otlp",error_type=""})`},
		{`sum(llm_prober_time_to_first_token_seconds_sum{target="mock-otlp"})`,
			`sum(gen_ai_client_operation_time_to_first_chunk_seconds_sum{job="llm-prober",llm_prober_target="mock-otlp"})`},
		{`sum(llm_prober_inter_token_latency_seconds_count{target="mock-otlp"})`,
			`sum(gen_ai_client_operation_time_per_output_chunk_seconds_count{job="llm-prober",llm_prober_target="mock-otlp"})`},
		{`sum(llm_prober_output_tokens_total{target="mock-otlp"})`,
			`sum(gen_ai_client_token_usage_sum{job="llm-prober",llm_prober_target="mock-otlp",gen_ai_token_type="output"})`},
		{`sum(llm_prober_server_e2e_request_latency_seconds_count{target="mock-otlp"})`,
			`sum(gen_ai_server_request_duration_seconds_count{job="llm-prober",llm_prober_target="mock-otlp"})`},
		{`sum(llm_prober_server_time_to_first_token_seconds_sum{target="mock-otlp"})`,
			`sum(gen_ai_server_time_to_first_token_seconds_sum{job="llm-prober",llm_prober_target="mock-otlp"})`},
	}
	var last string
	agreed := false
	for deadline := time.Now().Add(3 * time.Minute); !agreed && time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		agreed, last = true, ""
		for _, p := range pairs {
			own, okOwn := scalar(ctx, api, p[0])
			got, okGot := scalar(ctx, api, p[1])
			last += fmt.Sprintf("%s = %v\n%s = %v\n", p[0], own, p[1], got)
			if !okOwn || !okGot || math.Abs(own-got) > 1e-6*math.Max(1, own) {
				agreed = false
			}
		}
		if probes, _ := scalar(ctx, api, pairs[0][0]); probes < 5 {
			agreed = false
		}
	}
	if !agreed {
		t.Fatalf("the translated series never agreed with the daemon's own (at least 5 probes); last:\n%s", last)
	}
	t.Logf("agreed:\n%s", last)
	attrs, err := api.instant(ctx, `gen_ai_client_operation_duration_seconds_count{llm_prober_target="mock-otlp"}`)
	if err != nil || len(attrs) == 0 {
		t.Fatalf("no duration series: %v", err)
	}
	want := map[string]string{"gen_ai_operation_name": "chat", "gen_ai_provider_name": "vllm", "gen_ai_request_model": "mock-model",
		"server_address": "127.0.0.1", "server_port": strings.Split(mockAddr, ":")[1], "llm_prober_module": "chat", "job": "llm-prober"}
	for k, v := range want {
		if attrs[0].Metric[k] != v {
			t.Errorf("label %s = %q, want %q (%v)", k, attrs[0].Metric[k], v, attrs[0].Metric)
		}
	}
	if v, _ := api.instant(ctx, `count(gen_ai_client_operation_duration_seconds_bucket{llm_prober_target="mock-otlp",le="81.92"})`); !hasValue(v) {
		t.Error("the advised bucket 81.92 is not in Prometheus")
	}
	if v, _ := api.instant(ctx, `target_info{job="llm-prober"}`); !hasValue(v) {
		t.Error("no target_info for the resource")
	}

	// bench: its total pushed by its end, as its --output-json has it.
	out := filepath.Join(dir, "bench.json")
	bench := exec.Command(bin, "bench", "--url", "http://"+mockAddr, "--request-rate", "50", "--num-prompts", "30",
		"--input-tokens", "16", "--output-tokens", "8", "--progress", "off", "--no-server-metrics",
		"--output-json", out, "--otlp-metrics.endpoint", otlp)
	if b, err := bench.CombinedOutput(); err != nil {
		t.Fatalf("bench: %v\n%s", err, b)
	}
	var res struct {
		Requests []struct {
			Latency float64
			Success bool
			Warmup  bool
		}
	}
	raw, _ := os.ReadFile(out)
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	var n int
	var e2el float64
	for _, r := range res.Requests {
		if r.Success && !r.Warmup {
			n++
			e2el += r.Latency
		}
	}
	var count, sum float64
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		count, _ = scalar(ctx, api, `sum(gen_ai_client_operation_duration_seconds_count{job="llm-prober-bench"})`)
		sum, _ = scalar(ctx, api, `sum(gen_ai_client_operation_duration_seconds_sum{job="llm-prober-bench"})`)
		if int(count) == n {
			break
		}
	}
	if int(count) != n || n != 30 || math.Abs(sum-e2el) > 1e-6*e2el {
		t.Errorf("bench: Prometheus has %v requests, latency sum %v; the JSON: %d, %v", count, sum, n, e2el)
	}
	prober.Stop(t)
	cancel()
}

// scalar is the value of a query returning one sample.
func scalar(ctx context.Context, api promAPI, q string) (float64, bool) {
	v, err := api.instant(ctx, q)
	if err != nil || len(v) != 1 {
		return 0, false
	}
	s, _ := v[0].Value[1].(string)
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
