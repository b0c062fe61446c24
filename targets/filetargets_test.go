package targets

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery/targetgroup"
)

const fileSDTargetCap = `
target_discovery:
  - name: files
    max_targets: 2
    file_sd_configs:
      - files: [sd/*.json, sd/*.yml]
        refresh_interval: 1s
    relabel_configs:
      - source_labels: [model]
        target_label: __model__
      - regex: model
        action: labeldrop
    template:
      modules: [m]
`

func fileOf(n int, json bool) string {
	ts := make([]string, n)
	for i := range ts {
		ts[i] = fmt.Sprintf("%q", fmt.Sprintf("10.0.%d.%d:8000", i/250, i%250))
	}
	if json {
		return `[{"targets": [` + strings.Join(ts, ", ") + `], "labels": {"model": "llama"}}]`
	}
	return "- targets: [" + strings.Join(ts, ", ") + "]\n  labels: {model: llama}\n"
}

// A file_sd file under the byte cap that lists more targets than
// 5 × max_targets is refused as one over the byte cap is: counted in
// llm_prober_discovery_files_too_large, its last good targets kept (60,000
// targets in 3.9 MB cost 698 MiB and were decoded at every refresh).
func TestFileSDTargetCap(t *testing.T) {
	for _, ext := range []string{"json", "yml"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			sd := filepath.Join(dir, "sd", "a."+ext)
			writeFile(t, sd, fileOf(2, ext == "json"))
			r := startFleet(t, loadConfig(t, dir, fileSDTargetCap), Shard{Count: 1})
			r.waitFor(t, "10.0.0.0:8000", "10.0.0.1:8000")
			writeFile(t, sd, fileOf(11, ext == "json")) // the cap is 5 × 2
			waitMetric(t, r, "llm_prober_discovery_files_too_large", "discovery=files", 1)
			if got := names(r.fleet.Derive(r.cfg).Targets); strings.Join(got, ",") != "10.0.0.0:8000,10.0.0.1:8000" {
				t.Errorf("over the target cap: targets %v, want the last good set", got)
			}
			writeFile(t, sd, fileOf(10, ext == "json")) // at the cap: read (max_targets keeps 2)
			waitMetric(t, r, "llm_prober_discovery_dropped_targets", "discovery=files,reason=limit", 8)
			if got := r.metric(t, "llm_prober_discovery_files_too_large", "discovery=files"); got != 0 {
				t.Errorf("at the cap: files too large %v", got)
			}
		})
	}
}

// An update equal to the last (file_sd re-reads the unchanged file every
// refresh_interval) is not applied again: it used to re-derive every
// target each time.
func TestUnchangedUpdateNotApplied(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sd", "a.json"), fileOf(2, true))
	r := startFleet(t, loadConfig(t, dir, fileSDTargetCap), Shard{Count: 1})
	r.waitFor(t, "10.0.0.0:8000", "10.0.0.1:8000")
	waitMetric(t, r, "llm_prober_discovery_unchanged_updates_total", "", 1)
	select {
	case cfg := <-r.out:
		t.Errorf("an unchanged update was applied again: %v", names(cfg.Targets))
	default:
	}
}

// The discovery gauges are set in place: a scrape during a Derive sees
// every entry's counts (a Reset at its start hid them in 4 of 6 scrapes
// while 60,000 targets were derived).
func TestDiscoveryGaugesSeenDuringDerive(t *testing.T) {
	dir := t.TempDir()
	r := startFleet(t, loadConfig(t, dir, fileSDTargetCap), Shard{Count: 1})
	r.fleet.Derive(r.cfg)
	var groups []*targetgroup.Group
	for i := range 20 {
		g := &targetgroup.Group{Source: fmt.Sprint(i), Labels: model.LabelSet{"model": "m"}}
		for j := range 1000 {
			g.Targets = append(g.Targets, model.LabelSet{model.AddressLabel: model.LabelValue(fmt.Sprintf("h%d-%d:80", i, j))})
		}
		groups = append(groups, g)
	}
	r.fleet.mu.Lock()
	r.fleet.groups = map[string][]*targetgroup.Group{"files": groups}
	r.fleet.mu.Unlock()
	var stop atomic.Bool
	var missed, seen atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if _, ok := r.find("llm_prober_discovery_dropped_targets", "discovery=files,reason=limit"); ok {
				seen.Add(1)
			} else {
				missed.Add(1)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	for range 5 {
		r.fleet.Derive(r.cfg)
	}
	stop.Store(true)
	wg.Wait()
	if missed.Load() > 0 {
		t.Errorf("the limit gauge was missing from %d of %d scrapes during Derive", missed.Load(), missed.Load()+seen.Load())
	}
}
