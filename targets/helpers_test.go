package targets

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
)

// KUBE_FEATURE_WatchListClient=false makes client-go list then watch, as
// the fake API server in kubernetes_test.go answers (Prometheus's own
// tests do the same); it must be set before client-go reads its gates.
func TestMain(m *testing.M) {
	os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	os.Exit(m.Run())
}

const modulesYAML = `
global: {interval: 10s}
modules:
  m:
    messages: [{role: user, content: hi}]
`

// loadConfig writes yml to dir/llm-prober.yml and loads it, so relative
// file_sd paths resolve against dir as in production.
func loadConfig(t testing.TB, dir, yml string) *config.Config {
	t.Helper()
	path := filepath.Join(dir, "llm-prober.yml")
	if err := os.WriteFile(path, []byte(modulesYAML+yml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// running is a Fleet applied to one config, whose derived configs arrive
// on a channel as the app would apply them.
type running struct {
	fleet *Fleet
	reg   *prometheus.Registry
	cfg   *config.Config
	out   chan *config.Config
}

func startFleet(t *testing.T, cfg *config.Config, s Shard) *running {
	t.Helper()
	r := &running{reg: prometheus.NewRegistry(), cfg: cfg, out: make(chan *config.Config, 100)}
	logger := level.NewFilter(log.NewLogfmtLogger(log.NewSyncWriter(os.Stderr)), level.AllowWarn())
	r.fleet = NewFleet(logger, r.reg, s, func() { r.out <- r.fleet.Derive(r.cfg) })
	if err := r.fleet.ApplyConfig(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.fleet.Stop)
	return r
}

// waitFor returns the first derived config whose target names are want.
func (r *running) waitFor(t *testing.T, want ...string) *config.Config {
	t.Helper()
	slices.Sort(want)
	deadline := time.After(15 * time.Second)
	var last []string
	for {
		select {
		case cfg := <-r.out:
			last = names(cfg.Targets)
			if slices.Equal(last, want) {
				return cfg
			}
		case <-deadline:
			t.Fatalf("targets %v, want %v", last, want)
		}
	}
}

func names(ts []*config.Target) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

// metric reads one series of the fleet's registry in the text format.
func (r *running) metric(t *testing.T, name, labels string) float64 {
	t.Helper()
	v, ok := r.find(name, labels)
	if !ok {
		t.Fatalf("no %s{%s}", name, labels)
	}
	return v
}

func (r *running) find(name, labels string) (float64, bool) {
	mfs, _ := r.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var parts []string
			for _, lp := range m.GetLabel() {
				parts = append(parts, lp.GetName()+"="+lp.GetValue())
			}
			if strings.Join(parts, ",") == labels {
				switch {
				case m.Gauge != nil:
					return m.GetGauge().GetValue(), true
				case m.Counter != nil:
					return m.GetCounter().GetValue(), true
				}
			}
		}
	}
	return 0, false
}

// waitMetric waits until a counter or gauge reaches at least want.
func waitMetric(t *testing.T, r *running, name, labels string, want float64) {
	t.Helper()
	for range 150 {
		if v, ok := r.find(name, labels); ok && v >= want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s{%s} never reached %v", name, labels, want)
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	// Write then rename, as configuration management does, so fsnotify
	// never sees a half-written file.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// startHTTPSDFleet runs one replica with a single http_sd entry,
// "registry", that reads url every 100ms.
func startHTTPSDFleet(t *testing.T, url string) *running {
	t.Helper()
	cfg := loadConfig(t, t.TempDir(), `
target_discovery:
  - name: registry
    http_sd_configs:
      - url: `+url+`
        refresh_interval: 100ms
    template:
      modules: [m]
      model: x
`)
	return startFleet(t, cfg, Shard{Count: 1})
}
