package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

const discoveryConfig = chatConfig + `target_discovery:
  - name: files
    file_sd_configs:
      - files: [sd.json]
    relabel_configs:
      - source_labels: [__address__]
        target_label: __target__
        regex: "127.0.0.1:(.*)"
        replacement: mock-$1
    template:
      modules: [chat]
      model: mock-model
`

// file_sd end to end: a discovered target starts probing, shows on /config
// and llm_prober_target_info with its labels, and when it leaves the file
// its series go.
func TestFileSDLifecycle(t *testing.T) {
	a, b := mockServer(t), mockServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "llm-prober.yml")
	testutil.WriteFile(t, file, discoveryConfig)
	sd := filepath.Join(dir, "sd.json")
	writeSD(t, sd, a, b)
	p := startProber(t, "--config.file="+file)

	na, nb := "mock-"+port(a), "mock-"+port(b)
	probes := func(name string) string {
		return fmt.Sprintf(`llm_prober_probes_total{model="mock-model",module="chat",target=%q}`, name)
	}
	p.waitFor(15*time.Second, func() bool { return p.metric(probes(na)) >= 1 && p.metric(probes(nb)) >= 1 })
	if v := p.metric(`llm_prober_shard_targets{shard="0",shard_count="1"}`); v != 2 {
		t.Errorf("llm_prober_shard_targets = %v", v)
	}
	if v := p.metric(`llm_prober_discovery_targets{discovery="files"}`); v != 2 {
		t.Errorf("llm_prober_discovery_targets = %v", v)
	}
	if _, body := p.get("/metrics"); !strings.Contains(body, `zone="z1"`) || !strings.Contains(body, "llm_prober_target_info{") {
		t.Errorf("target_info lacks the discovered label")
	}
	if _, body := p.get("/config"); !strings.Contains(body, "discovered_by: files") || !strings.Contains(body, "file_sd_configs:") {
		t.Errorf("/config does not show what was discovered:\n%s", body)
	}

	writeSD(t, sd, a)
	p.waitFor(15*time.Second, func() bool { return p.metric(probes(nb)) == -1 })
	before := p.metric(probes(na))
	p.waitFor(5*time.Second, func() bool { return p.metric(probes(na)) > before })
}

// Two replicas with --shard.count=2 split the discovered targets: each is
// probed by exactly one. The index may be a StatefulSet pod name.
func TestShardedReplicas(t *testing.T) {
	var urls []string
	for range 6 {
		urls = append(urls, mockServer(t))
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "llm-prober.yml")
	testutil.WriteFile(t, file, discoveryConfig)
	writeSD(t, filepath.Join(dir, "sd.json"), urls...)
	p0 := startProber(t, "--config.file="+file, "--shard.count=2", "--shard.index=0")
	p1 := startProber(t, "--config.file="+file, "--shard.count=2", "--shard.index=llm-prober-1")
	shard := func(p *proc, i int) float64 {
		return p.metric(fmt.Sprintf(`llm_prober_shard_targets{shard="%d",shard_count="2"}`, i))
	}
	p0.waitFor(15*time.Second, func() bool { return shard(p0, 0)+shard(p1, 1) == 6 })
	if _, page := p1.get("/"); !strings.Contains(page, "shard 1 of 2: "+fmt.Sprint(shard(p1, 1))+" of 6 targets") {
		t.Errorf("the status page does not show the shard")
	}
	time.Sleep(2500 * time.Millisecond) // every job gets at least one slot
	for _, u := range urls {
		name := fmt.Sprintf(`llm_prober_probes_total{model="mock-model",module="chat",target="mock-%s"}`, port(u))
		in0, in1 := p0.metric(name) > 0, p1.metric(name) > 0
		if in0 == in1 {
			t.Errorf("%s probed by shard 0: %v, shard 1: %v", name, in0, in1)
		}
	}
}

func port(url string) string { return url[strings.LastIndex(url, ":")+1:] }

func writeSD(t *testing.T, path string, urls ...string) {
	t.Helper()
	var addrs []string
	for _, u := range urls {
		addrs = append(addrs, fmt.Sprintf("%q", strings.TrimPrefix(u, "http://")))
	}
	body := fmt.Sprintf(`[{"targets": [%s], "labels": {"zone": "z1"}}]`, strings.Join(addrs, ","))
	if err := os.WriteFile(path+".tmp", []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// --probe.location labels every probe series and target_info, and wins
// over global.location.
func TestProbeLocation(t *testing.T) {
	url := mockServer(t)
	file := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, file, strings.Replace(fmt.Sprintf(configTemplate, targetYAML("a", url)), "global: {", "global: {location: from-file, ", 1))
	p := startProber(t, "--config.file="+file, "--probe.location=eu-west-1")
	probes := `llm_prober_probes_total{location="eu-west-1",model="mock-model",module="chat",target="a"}`
	p.waitFor(10*time.Second, func() bool { return p.metric(probes) >= 1 })
	_, body := p.get("/metrics")
	for _, line := range strings.Split(body, "\n") {
		if strings.Contains(line, `target="a"`) && !strings.HasPrefix(line, "#") && !strings.Contains(line, `location="eu-west-1"`) {
			t.Errorf("a series of target a without the location: %s", line)
		}
	}
	if !strings.Contains(body, `llm_prober_target_info{backend="auto",location="eu-west-1"`) {
		t.Errorf("target_info lacks the location")
	}
	if _, cfg := p.get("/config"); !strings.Contains(cfg, "location: eu-west-1") {
		t.Errorf("/config does not show the running location")
	}
	if out, err := exec.Command(binary, "--config.file="+file, "--probe.location= x").CombinedOutput(); err == nil {
		t.Errorf("a location with spaces was accepted: %s", out)
	}
}
