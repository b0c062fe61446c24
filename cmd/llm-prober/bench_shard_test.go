package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

// plannedTimes reads a result file's measured requests' planned send
// times (s) by index.
func plannedTimes(t *testing.T, path string) map[int64]float64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Requests []struct {
			Index   int64   `json:"index"`
			Planned float64 `json:"planned_s"`
			Warmup  bool    `json:"warmup"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	out := map[int64]float64{}
	for _, q := range f.Requests {
		if !q.Warmup {
			out[q.Index] = q.Planned
		}
	}
	return out
}

func gapCV(times map[int64]float64) float64 {
	ts := make([]float64, 0, len(times))
	for _, v := range times {
		ts = append(ts, v)
	}
	slices.Sort(ts)
	var m, v float64
	n := float64(len(ts) - 1)
	for i := 1; i < len(ts); i++ {
		m += ts[i] - ts[i-1]
	}
	m /= n
	for i := 1; i < len(ts); i++ {
		d := ts[i] - ts[i-1] - m
		v += d * d
	}
	return math.Sqrt(v/(n-1)) / m
}

// Three shards as separate processes, as an Indexed Job's pods, at gamma
// burstiness 0.3: their union is the single process's schedule (its gap
// CV, ≈ 1/√0.3, is kept, not drifted towards 1), and the merge reads the
// kernel's real clock state: on a host without NTP discipline it
// refuses (exit 4) unless --max-clock-offset 0, then marks the run.
func TestBenchShardsAsProcesses(t *testing.T) {
	url := mocktarget.URL(t)
	dir := t.TempDir()
	args := []string{"--url", url, "--seed", "3", "--request-rate", "1500", "--burstiness", "0.3", "--num-prompts", "1500",
		"--input-tokens", "8", "--output-tokens", "2", "--progress", "off", "--metrics-interval", "100ms"}
	single := filepath.Join(dir, "single.json")
	if code, out, log := benchCLI(t, append(slices.Clone(args), "--output-json", single)...); code != 0 {
		t.Fatalf("single run: exit %d\n%s\n%s", code, out, log)
	}
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	files := make([]string, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		files[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		wg.Go(func() {
			a := append(slices.Clone(args), "--shard", fmt.Sprintf("%d/3", i), "--start-at", start, "--output-json", files[i])
			if code, out, log := benchCLI(t, a...); code != 0 {
				t.Errorf("shard %d: exit %d\n%s\n%s", i, code, out, log)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	want, union := plannedTimes(t, single), map[int64]float64{}
	for _, f := range files {
		for k, v := range plannedTimes(t, f) {
			union[k] = v
		}
	}
	if len(union) != 1500 || len(want) != 1500 {
		t.Fatalf("%d requests in the union, %d alone", len(union), len(want))
	}
	for k, v := range want {
		if math.Abs(union[k]-v) > 1e-9 {
			t.Fatalf("request %d planned at %g s by the shards, %g s alone", k, union[k], v)
		}
	}
	if cv, cvOne := gapCV(union), gapCV(want); math.Abs(cv-1/math.Sqrt(0.3)) > 0.2 || math.Abs(cv-cvOne) > 1e-9 {
		t.Errorf("gap CV %.3f merged, %.3f alone: want both ≈ %.3f", cv, cvOne, 1/math.Sqrt(0.3))
	} else {
		t.Logf("gap CV: %.3f merged, %.3f alone", cv, cvOne)
	}

	code, out, log := benchCLI(t, append([]string{"merge", "--max-clock-offset", "0", "--output-json", filepath.Join(dir, "merged.json")}, files...)...)
	if code != 0 || !strings.Contains(log, "merged 3 shards") || !strings.Contains(out, "Successful requests:                     1500") {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, log)
	}
	code, _, log = benchCLI(t, append([]string{"merge"}, files...)...)
	switch {
	case strings.Contains(log, "(adjtimex)") && code == 0:
		t.Log("this host's clock is synchronised: the merge accepted it")
	case code != 4 || !strings.Contains(log, "shard 0 ("):
		t.Errorf("an unsynchronised or unknown clock with --max-clock-offset 50ms: exit %d\n%s", code, log)
	}
}
