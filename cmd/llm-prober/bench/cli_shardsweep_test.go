package bench

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/capacity/kneefile"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest/shard"
)

// sweepFile is a sweep's --output-json as the test reads it.
type sweepFile struct {
	Status string    `json:"llm_prober_knee_status"`
	Knee   float64   `json:"knee_request_rate"`
	Rate   float64   `json:"knee_achieved_request_rate"`
	Lower  float64   `json:"llm_prober_knee_lower_bound_request_rate"`
	CI     []float64 `json:"llm_prober_knee_request_rate_ci95"`
	Points []struct {
		Kind       string  `json:"kind"`
		Completed  float64 `json:"completed"`
		Throughput float64 `json:"request_throughput"`
		Requests   []struct {
			Index   int64   `json:"index"`
			Planned float64 `json:"planned_s"`
			Success bool    `json:"success"`
			Warmup  bool    `json:"warmup"`
		} `json:"requests"`
	} `json:"points"`
}

func readSweepFile(t *testing.T, path string) sweepFile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f sweepFile
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// A sweep run as one sharded run per rate (two shards each, the seed
// stepping per point as bench --sweep's fresh prompts do) and merged
// replays the single process's sweep over the same rates: the same
// points (kinds, rates, requests and their planned send times), the same
// knee and status, an interval and a knee file that kneefile reads. The
// merge names what is missing: the refine point the sweep asks for (with
// its rate and seed), a shard of one rate; a sweep whose rates all held
// is a lower bound, as bench's.
func TestMergeShardedSweepIsTheSingleSweep(t *testing.T) {
	url := mocktarget.Saturating(t)
	common := []string{"--url", url, "--input-tokens", "8", "--output-tokens", "4", "--progress", "off", "--goodput", "ttft:600",
		"--num-prompts", "15", "--no-server-metrics"}
	single := filepath.Join(t.TempDir(), "single.json")
	wantCode, stdout, log := benchCLI(t, append(slices.Clone(common), "--rates", "10,500", "--sweep-refine", "1", "--min-samples", "15",
		"--seed", "7", "--output-json", single)...)
	one := readSweepFile(t, single)
	if one.Status != "found" || one.Knee != 10 || len(one.Points) != 3 || one.Points[2].Kind != "refine" {
		t.Fatalf("single sweep: exit %d, status %q, knee %g, %d points (the test expects 10 good, 500 and the refine at 255 bad)\n%s\n%s",
			wantCode, one.Status, one.Knee, len(one.Points), stdout, log)
	}

	synced := func(int) shard.Clock { return syncedClock }
	files := map[string][]string{}
	for _, p := range []struct{ rate, seed string }{{"10", "7"}, {"500", "8"}, {"255", "9"}} {
		files[p.rate] = runShards(t, url, 2, synced, append(slices.Clone(common), "--request-rate", p.rate, "--seed", p.seed)...)
	}
	all := slices.Concat(files["500"], files["10"])

	code, _, log := mergeCLI(t, append(slices.Clone(all), "--sweep-refine", "1")...)
	if code != ExitFailed || !strings.Contains(log, "refine point at 255 req/s has no shard files") || !strings.Contains(log, "--seed 9") {
		t.Errorf("refine point missing: exit %d, want %d naming its rate and seed:\n%s", code, ExitFailed, log)
	}
	code, _, log = mergeCLI(t, files["10"][0], files["10"][1], files["500"][0], "--sweep-refine", "0")
	if code != ExitFailed || !strings.Contains(log, "the 500 req/s point: shard 1 of 2 missing") {
		t.Errorf("a shard of one rate missing: exit %d, want %d naming the rate and shard:\n%s", code, ExitFailed, log)
	}
	code, _, log = mergeCLI(t, append(slices.Concat(files["10"], files["255"]), "--sweep-refine", "0")...)
	if code != ExitBadInput || !strings.Contains(log, "the 255 req/s point is the sweep's point 1") || !strings.Contains(log, "--seed 8") {
		t.Errorf("a point drawn with another seed: exit %d, want %d naming the seed it needs:\n%s", code, ExitBadInput, log)
	}

	merged := filepath.Join(t.TempDir(), "merged.json")
	code, stdout, log = mergeCLI(t, append(slices.Concat(all, files["255"]), "--rates", "10,500", "--sweep-refine", "1",
		"--output-json", merged, "--report", merged+".html")...)
	if code != wantCode {
		t.Fatalf("merged sweep: exit %d, the single sweep's %d\n%s\n%s", code, wantCode, stdout, log)
	}
	got := readSweepFile(t, merged)
	if got.Status != one.Status || got.Knee != one.Knee || len(got.Points) != len(one.Points) || len(got.CI) != 2 {
		t.Fatalf("merged: status %q knee %g, %d points, interval %v; single: %q %g %d", got.Status, got.Knee, len(got.Points), got.CI,
			one.Status, one.Knee, len(one.Points))
	}
	for i, p := range got.Points {
		q := one.Points[i]
		if p.Kind != q.Kind || p.Completed != q.Completed || len(p.Requests) != len(q.Requests) {
			t.Errorf("point %d: %s, %g completed, %d requests; single: %s, %g, %d", i, p.Kind, p.Completed, len(p.Requests), q.Kind, q.Completed, len(q.Requests))
			continue
		}
		planned := map[int64]float64{}
		for _, r := range q.Requests {
			planned[r.Index] = r.Planned
		}
		for _, r := range p.Requests {
			if want, ok := planned[r.Index]; !ok || math.Abs(r.Planned-want) > 1e-9 {
				t.Errorf("point %d request %d planned at %.9f s merged, %.9f s alone", i, r.Index, r.Planned, want)
			}
		}
	}
	if got.Rate != got.Points[0].Throughput {
		t.Errorf("knee rate %g is not the knee point's achieved rate %g", got.Rate, got.Points[0].Throughput)
	}
	k, err := kneefile.Read(merged)
	if err != nil || k.Rate != got.Rate {
		t.Errorf("kneefile.Read(merged sweep): %+v, %v; want the knee %g", k, err, got.Rate)
	}
	for _, want := range []string{"Knee (SLO attainment ≥ 99%)", "point 2 (refine) at 255 req/s"} {
		if !strings.Contains(stdout+log, want) {
			t.Errorf("merge output lacks %q:\n%s\n%s", want, stdout, log)
		}
	}
	if page := readReport(t, merged+".html"); !strings.Contains(page, "Knee:") {
		t.Error("the merged sweep's report has no knee")
	}

	lower := filepath.Join(t.TempDir(), "lower.json")
	code, _, log = mergeCLI(t, append(slices.Clone(files["10"]), "--rates", "10", "--output-json", lower)...)
	if code != ExitFailed || !strings.Contains(log, "knee above 10.00 req/s (lower bound)") || readSweepFile(t, lower).Status != "lower_bound" {
		t.Errorf("one good rate: exit %d, want %d and a lower bound\n%s", code, ExitFailed, log)
	}
	if _, err := kneefile.Read(lower); err == nil {
		t.Error("kneefile read a lower bound as a knee")
	}
}
