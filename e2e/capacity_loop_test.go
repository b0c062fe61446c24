package e2e

import (
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

// The capacity loop end to end, as docs/capacity-plan.md's worked example runs it:
// `bench --sweep` measures the mock's knee into sweep.json; the daemon
// probes the mock with `capacity: {knee_file: sweep.json}` and exports the
// knee and the live headroom from the mock's own request counter; the
// pinned Prometheus scrapes the daemon for about 30 s; and `llm-prober
// plan --knee-file sweep.json` plans for what the mock served. Each step
// reads the previous one's output, so the test checks that they agree: the
// knee the daemon exports is the file's, the headroom is 1 − served ÷ knee,
// and the plan's replicas and GPUs follow from its own numbers.
func TestCapacityLoopLive(t *testing.T) {
	requireE2E(t)
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	bin := buildProber(t, dir)

	// One request at a time, ~95 ms each: 2 req/s holds, a burst at 200 does not.
	mockAddr, _ := startMock(t, bin, "--ttft", "20ms", "--ttft-jitter", "0",
		"--itl", "5ms", "--itl-jitter", "0", "--max-running", "1", "--kv-blocks", "0")

	// 1. The knee of one replica: a rate the mock serves within the SLO and
	// one it does not (a sweep that never bends has no knee, issue 31).
	sweep := filepath.Join(dir, "sweep.json")
	bench := exec.Command(bin, "bench", "--url", "http://"+mockAddr, "--sweep", "--rates", "2,200",
		"--num-prompts", "40", "--min-samples", "40", "--input-tokens", "64", "--output-tokens", "16",
		"--goodput", "ttft:2000", "--progress", "off", "--output-json", sweep)
	if out, err := bench.CombinedOutput(); err != nil {
		t.Fatalf("bench --sweep: %v\n%s", err, out)
	}
	var sw struct {
		Knee float64 `json:"knee_achieved_request_rate"`
	}
	raw, err := os.ReadFile(sweep)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &sw); err != nil || !(sw.Knee > 1) {
		t.Fatalf("sweep.json: knee %v, err %v:\n%.2000s", sw.Knee, err, raw)
	}
	t.Logf("knee %.3f req/s achieved", sw.Knee)

	// 2. The daemon: the knee from the file, the served rate from the
	// mock's counter over an 8 s window (1 s scrapes).
	cfg := "global:\n  interval: 1s\n  timeout: 1s\nmodules:\n" + e2ekit.ChatModule + `targets:
  - name: mock-live
    url: "http://` + mockAddr + `"
    model: mock-model
    backend: vllm
    modules: [chat]
    server_metrics:
      enabled: true
      interval: 1s
    capacity:
      knee_file: sweep.json
      rate_window: 8s
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

	// 3. The headroom, as Prometheus stored it: one instant, all three
	// series from the same scrape.
	api := promAPI{promapi.Client{Base: prom.URL}}
	get := func(name string) float64 {
		t.Helper()
		v, err := api.instant(t.Context(), name+`{target="mock-live"}`)
		if err != nil || len(v) != 1 {
			t.Fatalf("%s: %v, %d series", name, err, len(v))
		}
		f, err := strconv.ParseFloat(fmt.Sprint(v[0].Value[1]), 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return f
	}
	knee, served, headroom := get("llm_prober_capacity_knee_requests_per_second"),
		get("llm_prober_capacity_served_requests_per_second"), get("llm_prober_capacity_headroom_ratio")
	t.Logf("daemon: knee %.3f, served %.3f req/s, headroom %.3f", knee, served, headroom)
	if knee != sw.Knee {
		t.Errorf("the daemon's knee %g, the sweep file's %g", knee, sw.Knee)
	}
	// Probes only: one a second at most, every one served.
	if !(served > 0.2 && served < 1.5) || math.Abs(headroom-(1-served/knee)) > 1e-9 {
		t.Errorf("served %.3f req/s, headroom %.4f: want ~1 req/s and 1 - served/knee = %.4f", served, headroom, 1-served/knee)
	}

	// 4. The plan for what was served, against the same knee file.
	out := filepath.Join(dir, "plan.json")
	cmd := exec.Command(bin, "plan", "--prometheus.url", prom.URL, "--selector", `{target="mock-live"}`, "--window", "1m",
		"--rate-interval", "10s", "--knee-file", sweep, "--gpus-per-replica", "4", "--output-json", out)
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
		Knee     struct {
			Rate float64 `json:"request_rate"`
		} `json:"knee"`
		Gen      *float64 `json:"mean_generation_tokens"`
		Replicas int      `json:"replicas"`
		GPUs     int      `json:"gpus"`
	}
	raw, _ = os.ReadFile(out)
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	// One probe a second at most (interval 1s), so a 10 s rate is at most
	// about 1 req/s; a probe takes a few ms, so it is well above none.
	if strings.Join(r.Targets, ",") != "mock-live" || r.Mean <= 0.2 || r.Peak > 1.5 || r.Peak < r.Mean || r.Required != r.Peak {
		t.Errorf("targets %v, mean %.3f, peak %.3f, required %.3f: want mock-live near 1 req/s", r.Targets, r.Mean, r.Peak, r.Required)
	}
	if r.Knee.Rate != sw.Knee {
		t.Errorf("plan's knee %g, the sweep file's %g", r.Knee.Rate, sw.Knee)
	}
	if r.Gen == nil || math.Abs(*r.Gen-16) > 0.01 {
		t.Errorf("mean generation %v tokens, want the probe's 16", r.Gen)
	}
	want := int(math.Ceil(math.Ceil(r.Required/sw.Knee-1e-9)*2 - 1e-9))
	if r.Replicas != want || r.GPUs != 4*want {
		t.Errorf("%d replicas, %d GPUs; want %d, %d from the required %.3f req/s", r.Replicas, r.GPUs, want, 4*want, r.Required)
	}
}
