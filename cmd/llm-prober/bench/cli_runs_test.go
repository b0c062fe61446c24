package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

// --num-runs 3: three runs with seeds 7, 8, 9 (fresh prompts: the
// workloads name their seeds), each run's JSON beside the summary's,
// the CSV's rows under run1…run3, the summary's mean and t interval;
// two of the runs compare as the same workload.
func TestBenchCLINumRuns(t *testing.T) {
	url := mocktarget.URL(t)
	dir := t.TempDir()
	jsonPath, csvPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv")
	code, stdout, log := benchCLI(t, "--url", url, "--num-runs", "3", "--seed", "7", "--request-rate", "200",
		"--num-prompts", "8", "--input-tokens", "8", "--output-tokens", "4", "--progress", "off", "--no-server-metrics",
		"--output-json", jsonPath, "--output-csv", csvPath)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, log)
	}
	for _, want := range []string{"Run 3 of 3 (seed 9)", "3 runs (seeds 7, 8, 9)", "95% CI of the mean (Student t)", "p99_ttft_ms (ms)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	var sum struct {
		Runs    int     `json:"num_runs"`
		Seeds   []int64 `json:"seeds"`
		Metrics []struct {
			Key    string    `json:"key"`
			Values []float64 `json:"values"`
			CILow  *float64  `json:"ci95_low"`
		} `json:"metrics"`
	}
	raw, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(raw, &sum); err != nil || sum.Runs != 3 || len(sum.Seeds) != 3 || sum.Metrics[0].Key != "mean_ttft_ms" ||
		len(sum.Metrics[0].Values) != 3 || sum.Metrics[0].CILow == nil {
		t.Errorf("summary JSON (%v): %s", err, raw)
	}
	for i, seed := range []string{"7", "8", "9"} {
		var run struct {
			Workload string `json:"llm_prober_workload"`
		}
		raw, err := os.ReadFile(filepath.Join(dir, "r.run"+string(rune('1'+i))+".json"))
		if err != nil || json.Unmarshal(raw, &run) != nil || !strings.HasSuffix(run.Workload, "seed "+seed) {
			t.Errorf("run %d's JSON: %v, workload %q", i+1, err, run.Workload)
		}
	}
	perRun := map[string]int{}
	for _, r := range readCSV(t, csvPath)[1:] {
		perRun[r[0]]++
	}
	if len(perRun) != 3 || perRun["run1"] != 8 || perRun["run3"] != 8 {
		t.Errorf("CSV rows per run: %v", perRun)
	}
	if code, stdout, log := compareCLI(t, filepath.Join(dir, "r.run1.json"), filepath.Join(dir, "r.run2.json")); code != 0 ||
		!strings.Contains(stdout, "WARNING: run-to-run variation is unknown") || !strings.Contains(stdout, "Send lag p99 (ms, how late the client sent): base ") {
		t.Errorf("runs of one --num-runs compare: exit %d\n%s%s", code, stdout, log)
	}
	// Issue 31: two --num-runs summaries compare across their runs
	// (Welch's t on the runs' values), not across pooled requests; a
	// summary against a single run is refused.
	other := filepath.Join(dir, "o.json")
	if code, stdout, log := benchCLI(t, "--url", url, "--num-runs", "3", "--seed", "17", "--request-rate", "200",
		"--num-prompts", "8", "--input-tokens", "8", "--output-tokens", "4", "--progress", "off", "--no-server-metrics",
		"--output-json", other); code != 0 {
		t.Fatalf("second --num-runs: exit %d\n%s%s", code, stdout, log)
	}
	code, stdout, log = compareCLI(t, "--max-regression", "p99_ttft_ms:1000%", jsonPath, other)
	if code != 0 || !strings.Contains(stdout, "(3 runs)") || !strings.Contains(stdout, "welch-t") ||
		!strings.Contains(stdout, "WARNING: 3 runs on a side: the test across runs is weak") || !strings.Contains(stdout, "Welch's t across the runs") {
		t.Errorf("two --num-runs summaries: exit %d\n%s%s", code, stdout, log)
	}
	if code, _, log := compareCLI(t, jsonPath, filepath.Join(dir, "r.run1.json")); code != 2 || !strings.Contains(log, "not one of each") {
		t.Errorf("a summary against a single run: exit %d, %s", code, log)
	}
	for _, args := range [][]string{{"--num-runs", "0"}, {"--num-runs", "2", "--rates", "1,2", "--goodput", "ttft:100"}} {
		if code, _, log := benchCLI(t, append([]string{"--url", url}, args...)...); code != 2 {
			t.Errorf("%q: exit %d, want 2: %s", args, code, log)
		}
	}
}
