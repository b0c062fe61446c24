package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/capacity/kneefile"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// Issue 31's reproduction, shortened: a mock that holds 10 and 20 req/s
// well within the SLOs (its knee is ~43 req/s; the SLOs here are wider
// than the issue's, so that a loaded machine cannot fail a point). The sweep never saw the
// curve bend, so it says the knee is above 20 req/s, prints no plan,
// exits 4, and its knee file is refused by the daemon's reader (which
// `plan --knee-file` uses too). Before: "Knee: 20.52 req/s", a 6-GPU
// plan, exit 0.
func TestBenchCLISweepBelowSaturationIsALowerBound(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 16 * time.Millisecond}, mockvllm.Dist{Mean: 8 * time.Millisecond}
	o.PerSequence, o.MaxRunning, o.KVBlocks, o.BatchSlowdown, o.PrefixCacheHitRate = 800*time.Microsecond, 20, 0, 0, 0
	url := mocktarget.Serve(t, o, nil)
	out := filepath.Join(t.TempDir(), "sweep.json")
	code, stdout, log := benchCLI(t, "--url", url, "--input-tokens", "32", "--output-tokens", "16", "--goodput", "ttft:2000 tpot:500",
		"--rates", "10,20", "--min-samples", "0", "--num-prompts", "40", "--daily-requests", "5000000", "--progress", "off",
		"--no-server-metrics", "--output-json", out, "--report", out+".html")
	if code != ExitFailed || !strings.Contains(log, "knee above 20.00 req/s (lower bound): extend --rates") {
		t.Fatalf("exit %d, want %d and the lower bound\n%s\n%s", code, ExitFailed, stdout, log)
	}
	for _, want := range []string{"Knee (SLO attainment ≥ 99%): knee above 20.00 req/s (lower bound)", "<- knee above (lower bound)",
		"no upper bound (no tested rate failed)", "Capacity plan: not printed: the knee was not reached (above 20.00 req/s)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "GPUs = replicas") || strings.Contains(stdout, "<- knee\n") {
		t.Errorf("a plan or a knee from a lower bound:\n%s", stdout)
	}
	page := readReport(t, out+".html")
	for _, want := range []string{"knee above 20.00 req/s (lower bound)", "20.00 req/s offered (knee above: lower bound)", "no upper bound (no tested rate failed)"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "Capacity plan") || strings.Contains(page, "(knee)") {
		t.Error("the report plans from a lower bound or calls it the knee")
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var sj map[string]any
	if err := json.Unmarshal(raw, &sj); err != nil {
		t.Fatal(err)
	}
	if sj["llm_prober_knee_status"] != "lower_bound" || sj["llm_prober_knee_lower_bound_request_rate"] != 20.0 ||
		sj["knee_achieved_request_rate"] != nil || sj["knee_request_rate"] != nil {
		t.Errorf("knee keys: status %v, lower bound %v, knee %v/%v", sj["llm_prober_knee_status"], sj["llm_prober_knee_lower_bound_request_rate"],
			sj["knee_request_rate"], sj["knee_achieved_request_rate"])
	}
	ci, _ := sj["llm_prober_knee_request_rate_ci95"].([]any)
	if len(ci) != 2 || ci[1] != nil {
		t.Errorf("interval %v: want [lo, null] (no upper bound)", sj["llm_prober_knee_request_rate_ci95"])
	}
	for name, read := range map[string]func(string) (*kneefile.Knee, error){"kneefile.Read": kneefile.Read} {
		if k, err := read(out); err == nil || !strings.Contains(err.Error(), "knee above 20 req/s is a lower bound") {
			t.Errorf("%s: knee %+v, err %v: want the lower bound refused", name, k, err)
		}
	}
}
