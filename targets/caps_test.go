package targets

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery/targetgroup"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/logadapter"
	"github.com/llm-prober/llm-prober/internal/testutil"
)

const capsSD = `
targets:
  - name: static-a
    url: http://127.0.0.1:1
    model: s
    modules: [m]
target_discovery:
  - name: files
    max_targets: 3
    file_sd_configs:
      - files: [sd/*.json]
    template:
      modules: [m]
      model: x
`

// An entry makes at most max_targets targets, and all entries with the
// static targets at most MaxTargets: the last by name are dropped, the
// same on every replica, and counted. Before, nothing was capped.
func TestDiscoveryTargetCaps(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sd", "a.json"), `[{"targets": ["10.0.0.5:1", "10.0.0.2:1", "10.0.0.4:1", "10.0.0.1:1", "10.0.0.3:1"]}]`)
	r := startFleet(t, loadConfig(t, dir, capsSD), Shard{Count: 1})
	r.waitFor(t, "static-a", "10.0.0.1:1", "10.0.0.2:1", "10.0.0.3:1")
	if got := r.metric(t, "llm_prober_discovery_dropped_targets", "discovery=files,reason=limit"); got != 2 {
		t.Errorf("dropped{reason=limit} = %v, want 2", got)
	}
	old := MaxTargets
	MaxTargets = 3
	t.Cleanup(func() { MaxTargets = old })
	if got := names(r.fleet.Derive(r.cfg).Targets); strings.Join(got, " ") != "10.0.0.1:1 10.0.0.2:1 static-a" {
		t.Errorf("with a total cap of 3: %v", got)
	}
	if got := r.metric(t, "llm_prober_discovery_dropped_targets", "discovery=files,reason=limit"); got != 3 {
		t.Errorf("dropped{reason=limit} = %v, want 3", got)
	}
}

// A discovered label longer than the caps makes an invalid target, not a
// 50 MB label on every probe series.
func TestDiscoveredLabelCaps(t *testing.T) {
	cfg := loadConfig(t, t.TempDir(), capsSD)
	long := model.LabelValue(strings.Repeat("v", config.MaxLabelValueBytes+1))
	longName := model.LabelName("l" + strings.Repeat("n", config.MaxLabelNameBytes))
	g := &targetgroup.Group{Source: "g", Targets: []model.LabelSet{
		{"__address__": "10.0.0.1:1", "zone": long},
		{"__address__": "10.0.0.2:1", longName: "v"},
		{"__address__": model.LabelValue("10.0.0.3:1/" + strings.Repeat("p", config.MaxURLBytes))},
		{"__address__": "10.0.0.4:1", "zone": "a"},
	}}
	b := Build(cfg.TargetDiscovery[0], []*targetgroup.Group{g})
	if len(b.Targets) != 1 || b.Dropped[DropInvalid] != 3 {
		t.Errorf("targets %v, dropped %v: want one target and 3 invalid", names(b.Targets), b.Dropped)
	}
	for _, err := range b.Errors {
		if len(err.Error()) > 512 {
			t.Errorf("error repeats the long value: %.100s…", err)
		}
	}
}

// An http_sd answer over MaxSDBodyBytes fails the refresh (the last good
// set stays); before, it was read whole (300 MB cost 1.2 GB).
func TestHTTPSDBodyCap(t *testing.T) {
	var big atomic.Bool
	small := `[{"targets": ["127.0.0.1:8001"]}]`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !big.Load() {
			fmt.Fprint(w, small)
			return
		}
		// Valid JSON, one target per 20 bytes, over the cap.
		fmt.Fprint(w, `[{"targets": [`)
		line := []byte(`"127.0.0.1:65535",`)
		for n := 0; n <= MaxSDBodyBytes; n += len(line) {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
		fmt.Fprint(w, `"127.0.0.1:1"]}]`)
	}))
	defer srv.Close()
	r := startHTTPSDFleet(t, srv.URL+"/sd")
	r.waitFor(t, "127.0.0.1:8001")
	big.Store(true)
	before, _ := r.find("prometheus_sd_http_failures_total", "")
	waitMetric(t, r, "prometheus_sd_http_failures_total", "", before+2)
	if got := names(r.fleet.Derive(r.cfg).Targets); len(got) != 1 || got[0] != "127.0.0.1:8001" {
		t.Errorf("after answers over the cap: %v, want the last good set", got)
	}
}

// The Fleet's logger, the discovery manager's through it too, writes a
// repeated line once a minute: its timestamp and caller aside.
func TestQuietLog(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	q := quiet(log.NewLogfmtLogger(&buf))
	q.(*quietLogger).now = func() time.Time { return now }
	lib := logadapter.Slog(q)
	fl := lib.With("discovery", "file")
	for range 1000 {
		fl.Error("Error reading file", "path", "sd/bad.json", "err", "unexpected end")
	}
	fl.Error("Error reading file", "path", "sd/other.json", "err", "unexpected end")
	lib.With("discovery", "http").Error("Error reading file", "path", "sd/bad.json", "err", "unexpected end")
	own := logadapter.Stamp(q)
	for range 2 {
		level.Warn(own).Log("msg", "discovered target is invalid", "discovery", "file", "err", "no model")
	}
	level.Warn(own).Log("msg", "discovered target is invalid", "discovery", "file", "err", "no model")
	now = now.Add(quietEvery)
	fl.Error("Error reading file", "path", "sd/bad.json", "err", "unexpected end")
	if n := strings.Count(buf.String(), "\n"); n != 5 {
		t.Errorf("%d lines, want 5:\n%s", n, buf.String())
	}
}

// An entry relabels at most LabelSetsPerTarget × max_targets label sets,
// in group source order whatever order the manager hands them over in.
func TestLabelSetCap(t *testing.T) {
	cfg := loadConfig(t, t.TempDir(), capsSD) // max_targets: 3
	var gs []*targetgroup.Group
	for i := range 4 {
		g := &targetgroup.Group{Source: fmt.Sprintf("g%d", i)}
		for j := range 5 {
			g.Targets = append(g.Targets, model.LabelSet{"__address__": model.LabelValue(fmt.Sprintf("10.0.%d.%d:1", i, j))})
		}
		gs = append(gs, g)
	}
	want := ""
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 1, 0, 2}} {
		var in []*targetgroup.Group
		for _, i := range order {
			in = append(in, gs[i])
		}
		b := Build(cfg.TargetDiscovery[0], in)
		got := strings.Join(names(b.Targets), " ")
		if len(b.Targets) != 15 || b.Dropped[DropLimit] != 5 {
			t.Errorf("order %v: %d targets, dropped %v; want 15 and 5 over the cap", order, len(b.Targets), b.Dropped)
		}
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("order %v kept %s, want %s", order, got, want)
		}
	}
}

// A bad file in a file_sd directory with another file written next to it
// over and over (a log file): every write made the discovery re-read the
// bad file and log its error, about 3,000 lines a second. The logger says
// it once a minute, and the size cap's copies (filecap.go) reach the
// discovery only when the bad file itself changes.
func TestFileSDBadFileLogsOnce(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sd", "bad.json"), `[{"targets": [`)
	var buf testutil.SyncBuffer
	reg := prometheus.NewRegistry()
	f := NewFleet(log.NewLogfmtLogger(&buf), reg, Shard{Count: 1}, nil)
	t.Cleanup(f.Stop)
	if err := f.ApplyConfig(loadConfig(t, dir, capsSD)); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(dir, "sd", "prober.log")
	for i := range 200 {
		if err := os.WriteFile(logFile, []byte(strings.Repeat("x", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	r := &running{fleet: f, reg: reg}
	waitMetric(t, r, "prometheus_sd_file_read_errors_total", "", 1) // the discovery read it
	if n := strings.Count(buf.String(), "bad.json"); n != 1 {
		t.Errorf("%d log lines name bad.json, want 1:\n%.2000s", n, buf.String())
	}
	// Prometheus's file discovery logs through logadapter as our lines
	// are written (level, ts, caller, msg), with the manager's attributes
	// and the real file's path.
	line := regexp.MustCompile(`^level=error ts=\d{4}-\d\d-\d\dT[\d:.]+Z caller=file\.go:\d+ msg="Error reading file" discovery=file config=files path=` +
		regexp.QuoteMeta(filepath.Join(dir, "sd", "bad.json")) + ` err=`)
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "bad.json") && !line.MatchString(l) {
			t.Errorf("the file discovery's line is not written as ours:\n%s\nwant %s", l, line)
		}
	}
}
