package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

// vllm bench serve's result keys: latencies, start_times, label,
// endpoint_type, generated_texts when asked, and a closed loop's
// request_rate "inf" (not 0).
func TestBenchCLIVLLMResultKeys(t *testing.T) {
	url := mocktarget.URL(t)
	dir := t.TempDir()
	read := func(path string) map[string]any {
		t.Helper()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var res map[string]any
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("bad JSON: %v", err)
		}
		return res
	}
	out := filepath.Join(dir, "a.json")
	code, stdout, log := benchCLI(t, "--url", url, "--concurrency", "2", "--num-prompts", "6", "--input-tokens", "8",
		"--output-tokens", "4", "--progress", "off", "--no-server-metrics", "--label", "nightly", "--save-generated-texts",
		"--output-json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	// Six requests: p99 is their maximum, and the report says so.
	if !strings.Contains(stdout, "p99 95% CI (ms, batch means): TTFT ") || !strings.Contains(stdout, "warning: p90, p95, p99, p99.9 TTFT, TPOT, E2EL rest on 6 samples") {
		t.Errorf("no p99 interval or sample warning:\n%s", stdout)
	}
	res := read(out)
	if res["request_rate"] != "inf" || res["label"] != "nightly" || res["endpoint_type"] != "openai-chat" {
		t.Errorf("request_rate %v (want \"inf\"), label %v, endpoint_type %v", res["request_rate"], res["label"], res["endpoint_type"])
	}
	for _, k := range []string{"latencies", "start_times", "generated_texts"} {
		a, _ := res[k].([]any)
		if len(a) != 6 {
			t.Fatalf("%s: %v, want 6 entries", k, res[k])
		}
	}
	lat, texts := res["latencies"].([]any), res["generated_texts"].([]any)
	for i := range lat {
		if l, _ := lat[i].(float64); l <= 0 {
			t.Errorf("latencies[%d] = %v", i, lat[i])
		}
		if s, _ := texts[i].(string); s == "" {
			t.Errorf("generated_texts[%d] is empty", i)
		}
	}
	out = filepath.Join(dir, "b.json")
	if code, _, log := benchCLI(t, "--url", url, "--request-rate", "100", "--num-prompts", "4", "--input-tokens", "8",
		"--output-tokens", "4", "--progress", "off", "--no-server-metrics", "--output-json", out); code != 0 {
		t.Fatalf("exit %d: %s", code, log)
	}
	res = read(out)
	if _, ok := res["generated_texts"]; ok || res["label"] != nil || res["request_rate"] != 100.0 {
		t.Errorf("default: generated_texts present %v, label %v, request_rate %v", ok, res["label"], res["request_rate"])
	}
}
