package bench

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// --output-csv beside --output-json: a row per request, warm-up
// included and marked, as many as the JSON's "requests"; a sweep's
// points in one file under their kind and rate.
func TestBenchCLIOutputCSV(t *testing.T) {
	url := mocktarget.URL(t)
	dir := t.TempDir()
	csvPath, jsonPath := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.json")
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "200", "--num-prompts", "20", "--warmup", "3",
		"--input-tokens", "8", "--output-tokens", "4", "--progress", "off", "--no-server-metrics",
		"--output-csv", csvPath, "--output-json", jsonPath)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, log)
	}
	rows := readCSV(t, csvPath)
	var res struct{ Requests []map[string]any }
	raw, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Requests) != 23 {
		t.Fatalf("JSON: %d requests, %v", len(res.Requests), err)
	}
	if len(rows) != 24 || rows[0][0] != "point" || rows[0][7] != "ttft_ms" {
		t.Fatalf("%d rows, header %q", len(rows), rows[0])
	}
	warm, ok := 0, 0
	for _, r := range rows[1:] {
		if r[0] != "" || r[1] != "200" {
			t.Errorf("single run's point and rate: %q", r[:2])
		}
		if r[3] == "true" {
			warm++
		}
		if r[17] == "true" && r[7] != "0" && r[16] == "4" {
			ok++
		}
	}
	if warm != 3 || ok != 23 {
		t.Errorf("%d warm-up rows (want 3), %d successful with a TTFT and 4 tokens (want 23)", warm, ok)
	}

	code, stdout, log = benchCLI(t, "--url", url, "--rates", "50,100", "--num-prompts", "10", "--min-samples", "10", "--input-tokens", "8",
		"--output-tokens", "4", "--goodput", "ttft:2000", "--progress", "off", "--no-server-metrics", "--output-csv", csvPath)
	// Every rate held: the knee is only a lower bound (exit 4, issue 31).
	if code != ExitFailed || !strings.Contains(log, "(lower bound): extend --rates") {
		t.Fatalf("sweep: exit %d\n%s%s", code, stdout, log)
	}
	perRate := map[string]int{}
	for _, r := range readCSV(t, csvPath)[1:] {
		perRate[r[0]+" "+r[1]]++
	}
	if len(perRate) != 2 || perRate["rate 50"] != 10 || perRate["rate 100"] != 10 {
		t.Errorf("sweep rows by point and rate: %v", perRate)
	}
	if code, _, log := benchCLI(t, "--url", url, "--num-prompts", "1", "--progress", "off", "--no-server-metrics",
		"--output-csv", filepath.Join(dir, "missing", "r.csv")); code != 1 || len(log) == 0 {
		t.Errorf("unwritable --output-csv: exit %d, %s", code, log)
	}
}
