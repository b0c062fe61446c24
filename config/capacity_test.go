package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/capacity/kneefile"
	"github.com/llm-prober/llm-prober/internal/testutil"
)

// capacityConfig is a config with one target whose capacity block is
// capacity (indented under it) and a discovery whose template has one too.
func capacityConfig(capacity string) string {
	return `
modules:
  chat:
    messages: [{role: user, content: hi}]
targets:
  - name: a
    url: http://127.0.0.1:8000
    model: m
    modules: [chat]
    server_metrics: {enabled: true, interval: 90s}
    capacity:
` + capacity + `
target_discovery:
  - name: pods
    file_sd_configs: [{files: [sd.json]}]
    template:
      modules: [chat]
      model: m
      server_metrics: {enabled: true}
      capacity: {knee_requests_per_second: 3}
`
}

func loadIn(t *testing.T, dir, yml string) (*Config, error) {
	t.Helper()
	p := filepath.Join(dir, "llm-prober.yml")
	if err := os.WriteFile(p, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	return LoadFile(p)
}

func TestCapacityNumber(t *testing.T) {
	c, err := loadIn(t, t.TempDir(), capacityConfig("      knee_requests_per_second: 8.3"))
	if err != nil {
		t.Fatal(err)
	}
	cp := c.Targets[0].Capacity
	// The default window holds 4 scrapes at 90 s: 6m, not 5m.
	if cp.Knee != 8.3 || cp.Source != KneeSourceConfig || cp.MinHeadroomRatio != DefaultMinHeadroomRatio ||
		cp.RateWindow != model.Duration(6*time.Minute) || cp.Workload != "" {
		t.Errorf("capacity %+v", cp)
	}
	// Discovered targets take the template's.
	nt, err := c.TargetDiscovery[0].NewTarget(model.LabelSet{"__address__": "h:1"})
	if err != nil || nt.Capacity == nil || nt.Capacity.Knee != 3 || nt.Capacity.RateWindow != model.Duration(DefaultRateWindow) {
		t.Errorf("discovered target capacity %+v, %v", nt.Capacity, err)
	}
}

// The knee's workload is the knee point's, burstiness included (issue 31:
// llm_prober_capacity_knee_info showed the synchronous point's 0).
func TestCapacityKneeFile(t *testing.T) {
	for _, tc := range []struct {
		name               string
		kneeFirst          bool
		points, requests   int
		wantWorkload       string
		minBytes, maxBytes int64
	}{
		{"as bench writes it", true, 3, 10, "synthetic: 512 input tokens, 128 output tokens (±0.2), burstiness 0.5", 0, 1 << 20},
		// 20 points of 15,000 requests: 3 MB of arrays, read token by token.
		{"knee after large points", false, 20, 15_000, "synthetic: 512 input tokens, 128 output tokens (±0.2), burstiness 0.5", 2 << 20, kneefile.MaxBytes},
		{"no points", true, 0, 0, "", 0, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := testutil.WriteSweep(t, dir, tc.kneeFirst, tc.points, tc.requests)
			if st, _ := os.Stat(p); st.Size() < tc.minBytes || st.Size() > tc.maxBytes {
				t.Fatalf("sweep file of %d bytes", st.Size())
			}
			// Relative to the config's directory.
			c, err := loadIn(t, dir, capacityConfig("      knee_file: sweep.json\n      min_headroom_ratio: 0\n      rate_window: 10m"))
			if err != nil {
				t.Fatal(err)
			}
			cp := c.Targets[0].Capacity
			if cp.Knee != 8.25 || cp.Source != KneeSourceFile || cp.Workload != tc.wantWorkload || cp.GoodputPercent != 99 ||
				cp.MinHeadroomRatio != 0 || cp.RateWindow != model.Duration(10*time.Minute) || cp.KneeFile != p {
				t.Errorf("capacity %+v", cp)
			}
		})
	}
}

// A changed knee file is read again on reload, without making the target
// a changed one for its probes (the collector compares the knee itself);
// a broken one fails the reload, naming the file, line and field.
func TestCapacityKneeFileReload(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteSweep(t, dir, true, 1, 1)
	yml := capacityConfig("      knee_file: sweep.json")
	a, err := loadIn(t, dir, yml)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sweep.json")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), `"knee_achieved_request_rate": 8.25`, `"knee_achieved_request_rate": 7`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadIn(t, dir, yml)
	if err != nil || c.Targets[0].Capacity.Knee != 7 || !a.Targets[0].Equal(c.Targets[0]) {
		t.Errorf("reloaded knee %+v, %v; equal to the old: %v", c.Targets[0].Capacity, err, a.Targets[0].Equal(c.Targets[0]))
	}
	if err := os.WriteFile(p, []byte(`{"knee_achieved_request_rate": "fast"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = loadIn(t, dir, yml)
	want := filepath.Join(dir, "llm-prober.yml") + `:12: targets[0].capacity.knee_file: ` + p + `:1: knee_achieved_request_rate: want a number`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestCapacityErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("empty.json", "")
	write("array.json", "[1, 2]")
	write("offered.json", `{"knee_request_rate": 8}`)
	write("zero.json", `{"knee_achieved_request_rate": 0}`)
	write("negative.json", `{"knee_achieved_request_rate": -1, "points": []}`)
	write("cut.json", `{"knee_achieved_request_rate": 8, "points": [{"ttfts": [1, 2`)
	write("other.json", `{"date": "20260101", "request_throughput": 8}`)
	if err := os.Mkdir(filepath.Join(dir, "dir.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	for capacity, want := range map[string]string{
		"knee_file: empty.json":                                       "empty.json: the JSON ends early",
		"knee_file: array.json":                                       `array.json:1: not JSON: expected '{', got '['`,
		"knee_file: offered.json":                                     "offered.json: no knee_achieved_request_rate (want a bench --sweep --output-json result)",
		"knee_file: zero.json":                                        "zero.json:1: knee_achieved_request_rate must be a rate between 1e-06 and 1e+09 req/s, got 0",
		"knee_file: negative.json":                                    "negative.json:1: knee_achieved_request_rate must be a rate between 1e-06 and 1e+09 req/s, got -1",
		"knee_file: cut.json":                                         "cut.json: the JSON ends early",
		"knee_file: other.json":                                       "other.json: no knee_achieved_request_rate (want a bench --sweep --output-json result)",
		"knee_file: dir.json":                                         "dir.json is a directory",
		"knee_requests_per_second: .inf":                              "knee_requests_per_second must be a rate between 1e-06 and 1e+09 req/s, got +Inf",
		"knee_requests_per_second: 5e-324":                            "knee_requests_per_second must be a rate between 1e-06 and 1e+09 req/s, got 5e-324",
		"knee_requests_per_second: -2":                                "knee_requests_per_second must be a rate between 1e-06 and 1e+09 req/s, got -2",
		"knee_requests_per_second: fast":                              "cannot unmarshal !!str `fast` into float64",
		"{}":                                                          "capacity needs knee_requests_per_second or knee_file",
		"knee_requests_per_second: 1\n      rate_window: 5m":          "rate_window 5m must hold at least 4 server_metrics intervals (6m) and be at most 1h",
		"knee_requests_per_second: 1\n      rate_window: 2h":          "rate_window 2h must hold at least 4 server_metrics intervals (6m) and be at most 1h",
		"knee_requests_per_second: 1\n      min_headroom_ratio: -0.1": "min_headroom_ratio must be at least 0 and less than 1, got -0.1",
		"knee_requests_per_second: 1\n      knee: 2":                  `targets[0].capacity.knee: unknown field (did you mean "knee_file"?)`,
	} {
		_, err := loadIn(t, dir, capacityConfig("      "+capacity))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "targets[0].capacity") {
			t.Errorf("%s: got %v, want %s", capacity, err, want)
		}
	}
	// The template's capacity is checked as a target's.
	_, err := loadIn(t, dir, strings.Replace(capacityConfig("      knee_requests_per_second: 1"), "{knee_requests_per_second: 3}", "{knee_file: none.json}", 1))
	if err == nil || !strings.Contains(err.Error(), "target_discovery[0].template.capacity.knee_file: cannot read "+filepath.Join(dir, "none.json")) {
		t.Errorf("template: %v", err)
	}
}

// A knee file named by many targets is read once per load.
func TestKneeFileReadOncePerLoad(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteSweep(t, dir, true, 2, 10)
	yml := capacityConfig("      knee_file: sweep.json")
	for _, name := range []string{"b", "c"} {
		yml = strings.Replace(yml, "target_discovery:", `  - name: `+name+`
    url: http://127.0.0.1:8000
    model: m
    modules: [chat]
    server_metrics: {enabled: true, interval: 90s}
    capacity: {knee_file: sweep.json}
target_discovery:`, 1)
	}
	before := kneefile.Opens()
	c, err := loadIn(t, dir, yml)
	if err != nil {
		t.Fatal(err)
	}
	if n := kneefile.Opens() - before; n != 1 || len(c.Targets) != 3 || c.Targets[2].Capacity.Knee != 8.25 {
		t.Errorf("%d reads for %d targets naming the file (knee %g)", n, len(c.Targets), c.Targets[2].Capacity.Knee)
	}
	if _, err := loadIn(t, dir, yml); err != nil || kneefile.Opens()-before != 2 {
		t.Errorf("a reload reads it again: %d reads, %v", kneefile.Opens()-before, err)
	}
}
