package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

// A ramp end to end: the report's stages in the text and the JSON, the
// JSON's request_rate the mean planned rate.
func TestBenchCLIRamp(t *testing.T) {
	url := mocktarget.URL(t)
	out := filepath.Join(t.TempDir(), "ramp.json")
	code, stdout, log := benchCLI(t, "--url", url, "--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "20", "--ramp-up-end-rps", "320",
		"--num-prompts", "100", "--warmup", "2", "--input-tokens", "8", "--output-tokens", "2", "--goodput", "ttft:5000",
		"--progress", "off", "--no-server-metrics", "--output-json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	for _, want := range []string{"open-loop, exponential ramp-up 20 → 320 req/s (mean ", "Per stage (10, by request order)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	var res map[string]any
	readJSON(t, out, &res)
	stages, _ := res["llm_prober_stages"].([]any)
	rate, _ := res["request_rate"].(float64)
	if len(stages) != 10 || rate < 20 || rate > 320 || res["llm_prober_traffic_shape"] != "exponential ramp-up 20 → 320 req/s" {
		t.Errorf("stages %d, request_rate %v, shape %v", len(stages), res["request_rate"], res["llm_prober_traffic_shape"])
	}
}

// A trace end to end: every request past the warm-up replayed without
// --num-prompts.
func TestBenchCLITrace(t *testing.T) {
	url := mocktarget.URL(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "mooncake.jsonl")
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 40, "output_length": 2, "hash_ids": [1, 2, 3]}`+"\n", 1000+i*100)
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	code, stdout, log := benchCLI(t, "--url", url, "--dataset-name", "trace", "--dataset-path", trace, "--trace-time-scale", "0.1",
		"--trace-block-size", "16", "--warmup", "1", "--progress", "off", "--no-server-metrics", "--output-json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	// The prompts built from hash-id blocks are re-counted by the mock's
	// tokenizer: their lengths are the trace's exactly.
	if !strings.Contains(stdout, "open-loop, trace replay") || !strings.Contains(log, "trace mooncake.jsonl (6 requests over 0.1 s, time ×0.1, 16-token blocks per hash id)") ||
		!strings.Contains(log, "6 prompts re-counted, max error 0 tokens") {
		t.Errorf("stdout:\n%s\nlog:\n%s", stdout, log)
	}
	var res map[string]any
	readJSON(t, out, &res)
	if res["completed"] != 5.0 || res["llm_prober_warmup_requests"] != 1.0 {
		t.Errorf("completed %v, warm-up %v: want the trace's 6 requests, 1 of them warm-up", res["completed"], res["llm_prober_warmup_requests"])
	}
}

// Shape flags that cannot work together fail before any load (exit 2),
// naming the flag.
func TestBenchCLIShapeFlagsRefused(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(trace, []byte(`{"timestamp": 0, "input_length": 4, "output_length": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ramp := []string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "10"}
	tr := []string{"--dataset-name", "trace", "--dataset-path", trace}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ramp-up-start-rps", "1"}, "need --ramp-up-strategy"},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-end-rps", "10"}, "needs both"},
		{append([]string{"--request-rate", "5"}, ramp...), "leave --request-rate unset"},
		{append([]string{"--duration", "10s"}, ramp...), "counts by request"},
		{append([]string{"--warmup", "5s"}, tr...), "counts by request"},
		{append([]string{"--concurrency", "4"}, ramp...), "open-loop"},
		{append([]string{"--sweep", "--goodput", "ttft:100"}, ramp...), "no --sweep"},
		{[]string{"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "10"}, "cannot start at 0"},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "20", "--ramp-up-end-rps", "10"}, "a ramp goes up"},
		{append(append([]string{}, ramp...), tr...), "no --ramp-up-strategy with --dataset-name trace"},
		{[]string{"--trace-time-scale", "2"}, "need --dataset-name trace"},
		{append([]string{"--trace-time-scale", "0"}, tr...), "--trace-time-scale 0 must be in [1e-06, 1e+06]"},
		{append([]string{"--trace-time-scale", "1e300"}, tr...), "--trace-time-scale 1e+300 must be in [1e-06, 1e+06]"},
		{append([]string{"--trace-time-scale", "5e-324"}, tr...), "--trace-time-scale 5e-324 must be in"},
		{[]string{"--request-rate", "5e-324"}, "--request-rate: rate \"5e-324\" is below 1e-06 req/s"},
		{append([]string{"--trace-block-size", "0"}, tr...), "--trace-block-size 0"},
		{[]string{"--dataset-name", "trace"}, "needs --dataset-path"},
	} {
		code, _, log := benchCLI(t, append([]string{"--url", "http://127.0.0.1:1"}, c.args...)...)
		if code != 2 || !strings.Contains(log, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, log, c.want)
		}
	}
}

// Synthetic multi-turn sessions end to end: --num-prompts counts
// sessions, the report and the JSON give TTFT by turn.
func TestBenchCLIConversations(t *testing.T) {
	url := mocktarget.URL(t)
	out := filepath.Join(t.TempDir(), "c.json")
	code, stdout, log := benchCLI(t, "--url", url, "--dataset-name", "conversations", "--turns", "3", "--think-time", "10ms",
		"--num-prompts", "4", "--request-rate", "50", "--input-tokens", "16", "--output-tokens", "4",
		"--progress", "off", "--no-server-metrics", "--output-json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	if !strings.Contains(stdout, "TTFT by turn (prefix-cache reuse)") || !strings.Contains(log, "conversations: 3 turns a session of synthetic") {
		t.Errorf("stdout:\n%s\nlog:\n%s", stdout, log)
	}
	var res map[string]any
	readJSON(t, out, &res)
	turns, _ := res["llm_prober_turns"].([]any)
	if res["completed"] != 12.0 || len(turns) != 3 {
		t.Errorf("completed %v (want 4 sessions × 3 turns), %d turn rows", res["completed"], len(turns))
	}
}

func TestBenchCLIConversationFlagsRefused(t *testing.T) {
	conv := []string{"--dataset-name", "conversations"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--turns", "3"}, "need --dataset-name conversations"},
		{append([]string{"--api", "completions"}, conv...), "use --api chat"},
		{append([]string{"--concurrency", "2"}, conv...), "drop --concurrency"},
		{append([]string{"--duration", "5s", "--max-concurrency", "2"}, conv...), "counts sessions"},
		{append([]string{"--turns", "0"}, conv...), "--turns 0"},
		{append([]string{"--think-time=-1s"}, conv...), "--think-time cannot be negative"},
		{append([]string{"--dataset-path", "x.json", "--turns", "2"}, conv...), "keep their own turns"},
	} {
		code, _, log := benchCLI(t, append([]string{"--url", "http://127.0.0.1:1"}, c.args...)...)
		if code != 2 || !strings.Contains(log, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, log, c.want)
		}
	}
}

// Synthetic sessions whose last turn's history cannot fit the server's
// context are refused before any load, naming --turns.
func TestBenchCLIConversationsPastContext(t *testing.T) {
	url := mocktarget.URL(t)
	code, _, log := benchCLI(t, "--url", url, "--dataset-name", "conversations", "--turns", "500", "--input-tokens", "64",
		"--output-tokens", "16", "--num-prompts", "2", "--progress", "off", "--no-server-metrics")
	if code != 1 || !strings.Contains(log, "--turns 500 of --input-tokens and --output-tokens: the last turn carries a history of up to 40000 tokens") {
		t.Errorf("exit %d: %s", code, log)
	}
}

// A trace whose requests cannot fit the server's context is refused
// before any load, with the file and line.
func TestBenchCLITracePastContext(t *testing.T) {
	url := mocktarget.URL(t)
	trace := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(trace, []byte(`{"timestamp": 0, "input_length": 40, "output_length": 2}`+"\n"+
		`{"timestamp": 5, "input_length": 40000, "output_length": 2}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, log := benchCLI(t, "--url", url, "--dataset-name", "trace", "--dataset-path", trace, "--progress", "off", "--no-server-metrics")
	if code != 1 || !strings.Contains(log, "long.jsonl:2: input 40000 + output 2 tokens") || !strings.Contains(log, "exceed the server's context of 32768 tokens") {
		t.Errorf("exit %d: %s", code, log)
	}
}
