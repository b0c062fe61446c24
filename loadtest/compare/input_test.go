package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// A --num-runs summary is read as one; a broken one is refused naming
// the file and what is wrong; a summary against a single run is refused.
func TestLoadRunsSummary(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"num_runs": 2, "seeds": [1, 2], "metrics": [{"key": "output_throughput", "unit": "tok/s", "values": [10, 12]}]}`)
	in, err := Load(good)
	if err != nil || in.Runs == nil || !in.Has("output_throughput") || in.Has("goodput") {
		t.Fatalf("%+v %v", in, err)
	}
	for name, c := range map[string]struct{ body, want string }{
		"short.json": {`{"num_runs": 3, "metrics": [{"key": "goodput", "values": [1]}]}`, "metric goodput: 1 values for num_runs 3"},
		"none.json":  {`{"num_runs": 0, "metrics": []}`, "without runs or metrics"},
		"cut.json":   {`{"num_runs": 2, "metrics": [`, "--num-runs summary"},
		"str.json":   {`{"num_runs": "x"}`, "--num-runs summary"},
	} {
		p := write(name, c.body)
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	single := readRun(t, writeRunFile(t, "one.json", 1, 5, 100, 0, summary.SLO{}, testWorkload))
	if _, err := CompareInputs(in, &Input{Run: single}, 0.05, nil); err == nil || !strings.Contains(err.Error(), "not one of each") {
		t.Errorf("mixed: %v", err)
	}
}
