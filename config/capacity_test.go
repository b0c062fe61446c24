package config

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/common/model"
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

// writeSweep writes a sweep result in dir: the knee keys first (as bench
// writes them) or after its points, and points points of requests
// numbers each.
func writeSweep(t testing.TB, dir string, kneeFirst bool, points, requests int) string {
	t.Helper()
	p := filepath.Join(dir, "sweep.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	knee := `"knee_goodput_percent": 99, "knee_request_rate": 9.5, "knee_achieved_request_rate": 8.25, "knee": "8.25 req/s achieved"`
	fmt.Fprint(w, "{")
	if kneeFirst {
		fmt.Fprint(w, knee+", ")
	}
	fmt.Fprint(w, `"llm_prober_prompts": "salted", "points": [`)
	for i := range points {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		// The last point is the knee's, the first a synchronous one.
		rate, burstiness := fmt.Sprint(i), 0.5
		if i == points-1 {
			rate = "9.5"
		}
		if i == 0 {
			burstiness = 0
		}
		fmt.Fprintf(w, "\n"+`{"kind": "rate", "request_rate": %s, "ttfts": [`, rate)
		for j := range requests {
			if j > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprint(w, "0.0123456")
		}
		fmt.Fprintf(w, `], "llm_prober_workload": "synthetic: 512 input tokens, 128 output tokens (±0.2), seed %d", "burstiness": %g, "nested": {"a": [[1], {"b": null}]}}`, i, burstiness)
	}
	fmt.Fprint(w, "]")
	if !kneeFirst {
		fmt.Fprint(w, ", "+knee)
	}
	fmt.Fprint(w, "}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
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

// A file as bench writes it is read up to the knee's point: what follows
// is never read (a sweep of a million requests loads at once).
func TestKneeFileReadsNoFurther(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sweep.json")
	if err := os.WriteFile(p, []byte(`{"knee_request_rate": 4, "knee_achieved_request_rate": 3, "points": [{"request_rate": 2, "llm_prober_workload": "v"}, `+
		`{"request_rate": 4, "llm_prober_workload": "w, seed 1"}, {not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := ReadKneeFile(p); err != nil || k.Rate != 3 || k.Workload != "w" {
		t.Errorf("got %+v, %v", k, err)
	}
}

// Reading stops at the cap: a knee past it is not looked for.
func TestKneeFileCap(t *testing.T) {
	p := writeSweep(t, t.TempDir(), false, 4, 80_000) // about 1.6 MB, the knee at the end
	_, err := readKneeFile(p, 1<<20)
	if err == nil || err.Error() != p+": no knee in the first 1 MiB" {
		t.Errorf("got %v", err)
	}
	if k, err := readKneeFile(p, 4<<20); err != nil || k.Rate != 8.25 {
		t.Errorf("under the cap: %+v, %v", k, err)
	}
	// The knee first, its point past the cap: the knee, its workload unknown.
	p = writeSweep(t, t.TempDir(), true, 4, 80_000)
	if k, err := readKneeFile(p, 1<<20); err != nil || k.Rate != 8.25 || k.Workload != "" || !math.IsNaN(k.PromptMean) {
		t.Errorf("knee first, point past the cap: %+v, %v", k, err)
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
		{"knee after large points", false, 20, 15_000, "synthetic: 512 input tokens, 128 output tokens (±0.2), burstiness 0.5", 2 << 20, MaxKneeFileBytes},
		{"no points", true, 0, 0, "", 0, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeSweep(t, dir, tc.kneeFirst, tc.points, tc.requests)
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
	writeSweep(t, dir, true, 1, 1)
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

// BenchmarkReadKneeFile reads the knee of a 3 MB sweep result: as bench
// writes it (the knee first, read up to the first point) and with the
// knee after every point (read token by token to the end).
func BenchmarkReadKneeFile(b *testing.B) {
	for _, kneeFirst := range []bool{true, false} {
		b.Run(fmt.Sprintf("knee_first=%v", kneeFirst), func(b *testing.B) {
			p := writeSweep(b, b.TempDir(), kneeFirst, 20, 15_000)
			for b.Loop() {
				if _, err := ReadKneeFile(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzKneeFile feeds arbitrary bytes as a knee file: never a panic, never
// more than the caps; an accepted knee is within its bounds (no 5e-324: a
// headroom of −Inf), its workload a short valid label
// value and its lengths finite; a refusal is one line naming the file.
func FuzzKneeFile(f *testing.F) {
	for _, name := range []string{"testdata/bad/capacity_garbled.json", "testdata/bad/capacity_no_knee.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"knee_achieved_request_rate": 3, "points": [{"llm_prober_workload": "w, seed 1", "burstiness": 0.5}, {`))
	f.Add([]byte(`{"points": [[], {}], "knee_achieved_request_rate": 1e308, "knee_request_rate": "x"}`))
	f.Add([]byte(`{"knee_achieved_request_rate": 2, "points": [{"llm_prober_workload": "` + strings.Repeat("é", 300) + `"}]}`))
	f.Add([]byte(`{"knee_goodput_percent": 99, "llm_prober_knee_status": "found", "knee_request_rate": 4, "knee_achieved_request_rate": 3.9,
		"points": [{"request_rate": "inf", "completed": 1}, {"request_rate": 4, "completed": 10, "total_input_tokens": 5120, "total_output_tokens": 1280,
		"llm_prober_workload": "w\u00e9\ud800, seed 2", "burstiness": 1, "requests": [{"ttft": 0.1, "itls": [1e-3, 2E+1, -0.5]}, null, true, false]}]}`))
	f.Add([]byte(`{"llm_prober_knee_status": "lower_bound", "llm_prober_knee_lower_bound_request_rate": 20, "knee_achieved_request_rate": 20}`))
	f.Add([]byte(`{"knee_achieved_request_rate": 5e-324} `))
	f.Add([]byte(`{"x": ` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `, "knee_achieved_request_rate": 1}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "knee.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := ReadKneeFile(p)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, p) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: not one line naming the file", msg)
			}
			return
		}
		if !(k.Rate >= MinKneeRate && k.Rate <= MaxKneeRate) || len(k.Workload) > maxWorkloadBytes || !utf8.ValidString(k.Workload) ||
			math.IsInf(k.PromptMean, 0) || math.IsInf(k.OutputMean, 0) {
			t.Errorf("knee %+v from %q", k, b)
		}
		if headroom := 1 - 1e9/k.Rate; math.IsInf(headroom, 0) || math.IsNaN(headroom) {
			t.Errorf("knee %g makes the headroom %g", k.Rate, headroom)
		}
	})
}
