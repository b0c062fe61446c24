package collector

import (
	"bytes"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// volatile families change with wall-clock time and are left out of goldens.
var volatile = map[string]bool{
	"llm_prober_server_scrape_duration_seconds": true,
	"llm_prober_server_scrape_data_age_seconds": true,
}

// serveFile serves a fixture as a classic text exposition.
func serveFile(t *testing.T, file string) *httptest.Server {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(body)
	})
}

// serve starts a test server on 127.0.0.1.
func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// target returns a server-metrics-enabled target with a long interval so
// that only the initial scrape runs unless a test says otherwise.
func target(name, url string) *config.Target {
	return &config.Target{
		Name: name, URL: url, Model: "configured-model", Backend: backend.Auto,
		ServerMetrics: config.ServerMetrics{Enabled: true, Interval: model.Duration(time.Hour), Timeout: model.Duration(5 * time.Second)},
	}
}

// newManager returns a Manager whose scrapers start at once instead of at
// a random phase, stopped when the test ends.
func newManager(t *testing.T, opts ...Option) *Manager {
	t.Helper()
	m := NewManager(nil, opts...)
	m.phase = func(time.Duration) time.Duration { return 0 }
	t.Cleanup(m.Stop)
	return m
}

func newTestManager(t *testing.T) (*Manager, *prometheus.Registry) {
	t.Helper()
	m := newManager(t)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	return m, reg
}

// waitScrapes waits until target name has finished n scrapes.
func waitScrapes(t *testing.T, m *Manager, name string, n float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		m.mu.Lock()
		s := m.scrapers[name]
		m.mu.Unlock()
		if s != nil {
			s.mu.Lock()
			got := s.ctr.scrapes
			s.mu.Unlock()
			if got >= n {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("target %q: fewer than %v scrapes after 10s", name, n)
}

// gatherText renders everything but the volatile families.
func gatherText(t *testing.T, g prometheus.Gatherer) []byte {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if volatile[mf.GetName()] {
			continue
		}
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// compareGolden checks g against testdata/<name>.golden with
// testutil.GatherAndCompare; -update rewrites the file first.
func compareGolden(t *testing.T, g prometheus.Gatherer, name string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, gatherText(t, g), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	names := familyNames(t, want)
	// Every non-volatile family we export must be in the golden file.
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if !volatile[mf.GetName()] && !contains(names, mf.GetName()) {
			t.Errorf("family %s is exported but not in %s", mf.GetName(), path)
		}
	}
	if err := testutil.GatherAndCompare(g, bytes.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}

func familyNames(t *testing.T, text []byte) []string {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range fams {
		names = append(names, n)
	}
	return names
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// series returns the gathered series of family name whose labels include want.
func series(t *testing.T, g prometheus.Gatherer, name string, want map[string]string) []*dto.Metric {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	var out []*dto.Metric
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, met := range mf.GetMetric() {
			if matches(labelMap(met), want) {
				out = append(out, met)
			}
		}
	}
	return out
}

// failures returns scrape_failures_total for target and reason.
func failures(t *testing.T, g prometheus.Gatherer, target, reason string) float64 {
	t.Helper()
	s := series(t, g, "llm_prober_server_scrape_failures_total", map[string]string{"target": target, "reason": reason})
	if len(s) != 1 {
		t.Fatalf("want one failures series for %s/%s, got %d", target, reason, len(s))
	}
	return s[0].GetCounter().GetValue()
}
