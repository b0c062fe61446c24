package e2e

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/internal/testutil/live"
)

// The capacity loop live: the daemon probes the mock (every probe a
// request the mock serves: 16 tokens generated, ignore_eos), the pinned
// Prometheus scrapes the daemon for about 30 s, and `llm-prober plan
// --window 1m` reads what was served: the one target, a rate near the
// probes', every generation 16 tokens, and replicas and GPUs from the
// formula on its own numbers.
func TestPlanLive(t *testing.T) {
	requireE2E(t)
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "llm-prober")
	goBuild(t, repoRoot(t), "./cmd/llm-prober", bin)

	mockAddr := testutil.FreeAddr(t)
	mock := testutil.Start(t, "mock-vllm", bin, "mock-vllm", "--listen-address", mockAddr, "--ttft", "5ms", "--itl", "1ms")
	testutil.WaitHTTP(t, mock, "http://"+mockAddr+"/v1/models", 30*time.Second)

	cfg := "global:\n  interval: 1s\n  timeout: 1s\nmodules:\n" + live.ChatModule + `targets:
  - name: mock-live
    url: "http://` + mockAddr + `"
    model: mock-model
    backend: vllm
    modules: [chat]
    server_metrics:
      enabled: true
      interval: 1s
`
	testutil.WriteFile(t, filepath.Join(dir, "llm-prober.yml"), cfg)
	proberAddr := testutil.FreeAddr(t)
	prober := testutil.Start(t, "llm-prober", bin, "--config.file", filepath.Join(dir, "llm-prober.yml"), "--web.listen-address", proberAddr)
	testutil.WaitHTTP(t, prober, "http://"+proberAddr+"/-/ready", 30*time.Second)

	prom := testutil.BackfilledPrometheus(t, nil, testutil.PromOptions{Config: `global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: llm-prober
    static_configs: [{targets: ["` + proberAddr + `"]}]
`})
	time.Sleep(35 * time.Second)

	out := filepath.Join(dir, "plan.json")
	cmd := exec.Command(bin, "plan", "--prometheus.url", prom.URL, "--selector", `{target="mock-live"}`, "--window", "1m",
		"--rate-interval", "10s", "--knee-rate", "0.25", "--gpus-per-replica", "4", "--output-json", out)
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, stdout)
	}
	t.Logf("plan:\n%s", stdout)
	var r struct {
		Targets  []string `json:"targets"`
		Mean     float64  `json:"mean_request_rate"`
		Peak     float64  `json:"peak_request_rate"`
		Required float64  `json:"required_request_rate"`
		Gen      *float64 `json:"mean_generation_tokens"`
		Replicas int      `json:"replicas"`
		GPUs     int      `json:"gpus"`
		Partial  bool     `json:"partial_window"`
	}
	raw, _ := os.ReadFile(out)
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	// One probe a second at most (interval 1s), so a 10 s rate is at most
	// about 1 req/s; a probe takes a few ms, so it is well above none.
	if strings.Join(r.Targets, ",") != "mock-live" || r.Mean <= 0.2 || r.Peak > 1.5 || r.Peak < r.Mean || r.Required != r.Peak {
		t.Errorf("targets %v, mean %.3f, peak %.3f, required %.3f: want mock-live near 1 req/s", r.Targets, r.Mean, r.Peak, r.Required)
	}
	if r.Gen == nil || math.Abs(*r.Gen-16) > 0.01 {
		t.Errorf("mean generation %v tokens, want the probe's 16", r.Gen)
	}
	want := int(math.Ceil(math.Ceil(r.Required/0.25-1e-9)*2 - 1e-9))
	if r.Replicas != want || r.GPUs != 4*want {
		t.Errorf("%d replicas, %d GPUs; want %d, %d from the required %.3f req/s", r.Replicas, r.GPUs, want, 4*want, r.Required)
	}
}
