package collector

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/exposition"
)

// hostileA and hostileB expose every kind of series that would make the
// registry fail the whole gather, next to series that must survive.
const (
	hostileA = `# HELP x:g help A
# TYPE x:g gauge
x:g 1
# TYPE x_g gauge
x_g 2
# TYPE lab gauge
lab{"a.b"="1"} 1
lab{a_b="1"} 2
lab{a_b="2"} 3
# TYPE col gauge
col{"a.b"="1",a_b="2"} 1
col{target="t",exported_target="u"} 1
# TYPE h histogram
h_bucket{le="1"} 1
h_bucket{le="+Inf"} 1
h_sum 1
h_count 1
# TYPE c counter
c 5
# TYPE ok_a gauge
ok_a 7
`
	hostileB = `# HELP x:g help B
# TYPE x:g gauge
x:g 3
# TYPE h_count gauge
h_count 9
# TYPE c gauge
c 4
# TYPE c_total gauge
c_total 4
# TYPE h counter
h 1
# TYPE ok_b gauge
ok_b 8
vllm:num_requests_running{model_name="m"} 2
`
)

type noFamilies struct{}

func (noFamilies) WriteFamilies(*exposition.Writer) {}

type testLogger struct{ t *testing.T }

func (l testLogger) Println(v ...any) { l.t.Log(v...) }

// One target's series, or two targets' series together, must never turn
// our /metrics into an error: clashing and invalid series are dropped and
// counted, and everything else is served.
func TestHostileSeriesNeverBreakTheExposition(t *testing.T) {
	a := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, hostileA) })
	b := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, hostileB) })
	m := newManager(t)
	reg := prometheus.NewRegistry() // as cmd/llm-prober builds it
	reg.MustRegister(m)
	ta, tb := target("a", a.URL), target("b", b.URL)
	ta.ServerMetrics.Passthrough = []*config.Regexp{re(".*")}
	tb.ServerMetrics.Passthrough = []*config.Regexp{re(".*")}
	tb.Backend = backend.VLLM
	m.Apply([]*config.Target{ta, tb})
	waitScrapes(t, m, "a", 1)
	waitScrapes(t, m, "b", 1)

	srv := httptest.NewServer(exposition.Handler(reg, noFamilies{}, testLogger{t}))
	t.Cleanup(srv.Close)
	for _, accept := range []string{"text/plain", "application/openmetrics-text;version=1.0.0"} {
		body := get(t, srv.URL, accept)
		assertUniqueFamilies(t, accept, body)
	}
	fams := parseText(t, get(t, srv.URL, "text/plain"))
	for _, want := range []string{
		"llm_prober_passthrough_ok_a", "llm_prober_passthrough_ok_b", "llm_prober_passthrough_x_g",
		"llm_prober_server_requests_running", "llm_prober_server_scrape_success",
	} {
		if fams[want] == nil {
			t.Errorf("family %s missing", want)
		}
	}
	if n := len(fams["llm_prober_passthrough_x_g"].GetMetric()); n != 2 {
		t.Errorf("x_g: %d series, want one per target", n)
	}
	if n := len(fams["llm_prober_passthrough_lab"].GetMetric()); n != 2 {
		t.Errorf("lab: %d series, want 2 (a_b=1 once, a_b=2)", n)
	}
	if fams["llm_prober_passthrough_h_count"] != nil {
		t.Error("h_count clashes with histogram h and must be left out")
	}
	for _, s := range fams["llm_prober_server_scrape_success"].GetMetric() {
		if s.GetGauge().GetValue() != 1 {
			t.Errorf("scrape_success %v", s)
		}
	}
	for _, c := range []struct {
		target, reason string
		want           float64
	}{
		// a: x_g twice, lab{a_b="1"} twice; col's labels collapse twice.
		{"a", "duplicate", 2}, {"a", "invalid", 2},
		// b: h_count (a's histogram), c gauge vs a's counter c_total (one
		// OpenMetrics family), c_total gauge vs counter, h counter's family
		// h vs a's histogram h.
		{"b", "type_conflict", 4},
	} {
		got := droppedSeries(t, fams, c.target, c.reason)
		if got != c.want {
			t.Errorf("dropped{target=%s,reason=%s} = %v, want %v", c.target, c.reason, got, c.want)
		}
	}
	// Counted once per scrape of the target, not once per exposition.
	get(t, srv.URL, "text/plain")
	fams = parseText(t, get(t, srv.URL, "text/plain"))
	if got := droppedSeries(t, fams, "a", "duplicate"); got != 2 {
		t.Errorf("after more expositions, dropped{a,duplicate} = %v, want 2", got)
	}
}

func droppedSeries(t *testing.T, fams map[string]*dto.MetricFamily, target, reason string) float64 {
	t.Helper()
	for _, s := range fams["llm_prober_server_metrics_dropped_series_total"].GetMetric() {
		l := labelMap(s)
		if l["target"] == target && l["reason"] == reason {
			return s.GetCounter().GetValue()
		}
	}
	return 0
}

func parseText(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("our exposition does not parse: %v", err)
	}
	return fams
}

// get fetches url and fails the test unless it answers 200.
func get(t *testing.T, url, accept string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Accept %s: HTTP %d: %s", accept, resp.StatusCode, body)
	}
	return body
}

// assertUniqueFamilies fails if a family is declared twice: Prometheus
// rejects such a scrape (in OpenMetrics a counter x_total is family x).
func assertUniqueFamilies(t *testing.T, accept string, body []byte) {
	t.Helper()
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 3 && f[0] == "#" && f[1] == "TYPE" {
			if seen[f[2]] {
				t.Errorf("Accept %s: family %s declared twice", accept, f[2])
			}
			seen[f[2]] = true
		}
	}
}
