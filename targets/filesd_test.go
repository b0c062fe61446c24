package targets

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/config"
)

const fileSD = `
targets:
  - name: static-a
    url: http://127.0.0.1:1
    model: s
    modules: [m]
target_discovery:
  - name: files
    file_sd_configs:
      - files: [sd/*.json]
    relabel_configs:
      - source_labels: [__address__]
        regex: "drop.*"
        action: drop
      - source_labels: [model]
        target_label: __model__
      - regex: model
        action: labeldrop
    template:
      modules: [m]
      backend: vllm
`

// A real file_sd file: added targets appear, removed ones go, a broken
// file keeps the last good set and counts a read error.
func TestFileSD(t *testing.T) {
	dir := t.TempDir()
	sd := filepath.Join(dir, "sd", "a.json")
	writeFile(t, sd, `[{"targets": ["10.0.0.1:8000", "10.0.0.2:8000", "drop-me:1"], "labels": {"model": "llama", "zone": "a"}}]`)
	r := startFleet(t, loadConfig(t, dir, fileSD), Shard{Count: 1})
	cfg := r.waitFor(t, "static-a", "10.0.0.1:8000", "10.0.0.2:8000")
	for _, tg := range cfg.Targets {
		if tg.Name == "static-a" {
			if tg.DiscoveredBy != "" {
				t.Errorf("static target marked discovered: %+v", tg)
			}
			continue
		}
		if tg.Model != "llama" || tg.Backend != "vllm" || tg.Labels["zone"] != "a" || len(tg.Labels) != 1 || tg.DiscoveredBy != "files" || tg.Interval.String() != "10s" {
			t.Errorf("discovered target: %+v", tg)
		}
	}
	if got := r.metric(t, "llm_prober_discovery_dropped_targets", "discovery=files,reason=relabel"); got != 1 {
		t.Errorf("dropped by relabel: %v", got)
	}
	if got := r.metric(t, "llm_prober_shard_targets", "shard=0,shard_count=1"); got != 3 {
		t.Errorf("shard targets: %v", got)
	}

	writeFile(t, sd, `[{"targets": ["10.0.0.2:8000", "10.0.0.3:8000"], "labels": {"model": "llama"}}]`)
	r.waitFor(t, "static-a", "10.0.0.2:8000", "10.0.0.3:8000")
	if got := r.metric(t, "llm_prober_discovery_targets", "discovery=files"); got != 2 {
		t.Errorf("discovered: %v", got)
	}

	// A broken file: Prometheus's file SD keeps its last groups.
	writeFile(t, sd, `[{"targets": [`)
	waitMetric(t, r, "prometheus_sd_file_read_errors_total", "", 1)
	if got := names(r.fleet.Derive(r.cfg).Targets); len(got) != 3 {
		t.Errorf("after a broken file: %v", got)
	}

	// An invalid target (no model) is dropped and counted, not fatal.
	writeFile(t, sd, `[{"targets": ["10.0.0.4:8000"]}, {"targets": ["10.0.0.5:8000"], "labels": {"model": "x"}}]`)
	r.waitFor(t, "static-a", "10.0.0.5:8000")
	if got := r.metric(t, "llm_prober_discovery_dropped_targets", "discovery=files,reason=invalid"); got != 1 {
		t.Errorf("invalid: %v", got)
	}
}

// Replicas reading the same file_sd split it: each target in exactly one
// shard, static targets included.
func TestFileSDShards(t *testing.T) {
	dir := t.TempDir()
	var list []string
	for i := range 200 {
		list = append(list, fmt.Sprintf(`"10.0.%d.%d:8000"`, i/250, i%250))
	}
	writeFile(t, filepath.Join(dir, "sd", "a.json"), `[{"targets": [`+strings.Join(list, ",")+`], "labels": {"model": "llama"}}]`)
	cfg := loadConfig(t, dir, fileSD)
	owned := map[string]int{}
	for i := range 3 {
		r := startFleet(t, cfg, Shard{Count: 3, Index: i})
		var got *config.Config
		for got == nil || len(got.Targets) == 0 {
			got = <-r.out
		}
		for _, tg := range got.Targets {
			owned[tg.Name]++
		}
		if n := r.metric(t, "llm_prober_shard_targets", fmt.Sprintf("shard=%d,shard_count=3", i)); int(n) != len(got.Targets) || n < 50 {
			t.Errorf("shard %d: gauge %v, %d targets", i, n, len(got.Targets))
		}
		if s := r.fleet.Summary(); s.Total != 201 || s.Targets != len(got.Targets) || s.Entries[0].Targets != 200 {
			t.Errorf("summary %+v", s)
		}
	}
	if len(owned) != 201 {
		t.Fatalf("%d targets owned, want 201", len(owned))
	}
	for n, c := range owned {
		if c != 1 {
			t.Errorf("%s owned by %d shards", n, c)
		}
	}
}
