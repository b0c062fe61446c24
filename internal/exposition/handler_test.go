package exposition

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/protobuf/proto"
)

// testSource writes one counter family and one histogram family.
type testSource struct{ h *Histogram }

var testLabels = NewLabelSet(NewLabel("target", "a"), NewLabel("module", "chat"))

func (s testSource) WriteFamilies(w *Writer) {
	w.Family("test_probes_total", "Probes.", dto.MetricType_COUNTER)
	w.Counter(testLabels, nil, 3, time.Unix(1700000000, 0).UnixNano())
	w.Family("test_empty", "Never written.", dto.MetricType_GAUGE)
	w.Family("test_latency_seconds", "Latency.", dto.MetricType_HISTOGRAM)
	w.Histogram(testLabels, s.h)
}

type logSink struct{ lines []string }

func (l *logSink) Println(v ...any) { l.lines = append(l.lines, fmt.Sprintln(v...)) }

func newTestServer(t *testing.T, g prometheus.Gatherer, log *logSink) *httptest.Server {
	t.Helper()
	spec := NewHistogramSpec([]float64{0.1, 1}, 3, 100, time.Hour, "probe_id")
	h := NewHistogram(spec, time.Unix(1700000000, 0))
	h.Observe(0.05, "abc", time.Unix(1700000001, 0))
	h.Observe(2, "def", time.Unix(1700000002, 0))
	srv := httptest.NewServer(Handler(g, testSource{h}, log))
	t.Cleanup(srv.Close)
	return srv
}

func registry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "test_up", Help: "Up."})
	g.Set(1)
	reg.MustRegister(g)
	return reg
}

func get(t *testing.T, url, accept, encoding string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	req.Header.Set("Accept-Encoding", encoding) // set, so the client does not undo gzip
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// Each negotiated format carries the registry's families and the
// source's, and decodes with the reference parsers.
func TestHandlerFormats(t *testing.T) {
	srv := newTestServer(t, registry(), &logSink{})
	for _, tc := range []struct {
		accept, contentType string
	}{
		{"", "text/plain; version=0.0.4"},
		{"application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5", "application/openmetrics-text; version=1.0.0"},
		{"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", "application/vnd.google.protobuf"},
	} {
		resp, body := get(t, srv.URL, tc.accept, "identity")
		ct := resp.Header.Get("Content-Type")
		if !strings.HasPrefix(ct, tc.contentType) {
			t.Errorf("Accept %q: Content-Type %q, want %q", tc.accept, ct, tc.contentType)
			continue
		}
		var names []string
		switch {
		case strings.HasPrefix(ct, "application/openmetrics-text"):
			if !bytes.HasSuffix(body, []byte("\n# EOF\n")) || bytes.Count(body, []byte("# EOF")) != 1 {
				t.Errorf("OpenMetrics body does not end with a single # EOF:\n%s", body)
			}
			for _, want := range []string{
				"# TYPE test_probes counter\n", `test_probes_total{module="chat",target="a"} 3.0` + "\n",
				`test_latency_seconds_bucket{module="chat",target="a",le="0.1"} 1 # {probe_id="abc"} 0.05 1.700000001e+09` + "\n",
				`test_latency_seconds_bucket{module="chat",target="a",le="+Inf"} 2 # {probe_id="def"} 2.0 1.700000002e+09` + "\n",
				"test_up 1.0\n",
			} {
				if !bytes.Contains(body, []byte(want)) {
					t.Errorf("OpenMetrics body lacks %q:\n%s", want, body)
				}
			}
			continue
		case strings.HasPrefix(ct, "text/plain"):
			parser := expfmt.NewTextParser(model.UTF8Validation)
			fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("text body does not parse: %v\n%s", err, body)
			}
			for n := range fams {
				names = append(names, n)
			}
		default:
			mfs, err := decodeProtobuf(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("protobuf body does not decode: %v", err)
			}
			for _, mf := range mfs {
				names = append(names, mf.GetName())
				if mf.GetName() == "test_latency_seconds" && mf.Metric[0].Histogram.GetSchema() != 3 {
					t.Errorf("protobuf histogram without native buckets: %v", mf.Metric[0])
				}
			}
		}
		slices.Sort(names)
		if want := []string{"test_latency_seconds", "test_probes_total", "test_up"}; !slices.Equal(names, want) {
			t.Errorf("Accept %q: families %v, want %v (no empty family)", tc.accept, names, want)
		}
	}
}

// gzip is used when accepted and refused with q=0; both give the same body.
func TestHandlerGzip(t *testing.T) {
	srv := newTestServer(t, registry(), &logSink{})
	resp, plain := get(t, srv.URL, "", "identity")
	if resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("identity asked, got Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	for enc, want := range map[string]bool{"gzip": true, "br, gzip;q=0.5": true, "gzip;q=0": false, "deflate": false} {
		resp, body := get(t, srv.URL, "", enc)
		if got := resp.Header.Get("Content-Encoding") == "gzip"; got != want {
			t.Errorf("Accept-Encoding %q: gzip %v, want %v", enc, got, want)
			continue
		}
		if want {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(body, plain) {
			t.Errorf("Accept-Encoding %q: body differs from the uncompressed one", enc)
		}
	}
}

// A gatherer that fails and gathers something serves what it gathered
// (and logs the error): one broken collector must not hide the rest.
func TestHandlerPartialGatherError(t *testing.T) {
	log := &logSink{}
	name := "kept_total"
	srv := newTestServer(t, prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		return []*dto.MetricFamily{{Name: &name, Type: dto.MetricType_COUNTER.Enum(),
			Metric: []*dto.Metric{{Counter: &dto.Counter{Value: proto.Float64(1)}}}}}, errors.New("one collector exploded")
	}), log)
	resp, body := get(t, srv.URL, "", "identity")
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("kept_total 1")) {
		t.Errorf("status %d, body %q", resp.StatusCode, body)
	}
	if len(log.lines) != 1 || !strings.Contains(log.lines[0], "one collector exploded") {
		t.Errorf("logged %q", log.lines)
	}
}

// A gatherer that fails with nothing gathered gives a 500 that says why,
// as promhttp does.
func TestHandlerGatherError(t *testing.T) {
	log := &logSink{}
	srv := newTestServer(t, prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		return nil, errors.New("collector exploded")
	}), log)
	resp, body := get(t, srv.URL, "", "identity")
	if resp.StatusCode != http.StatusInternalServerError || !bytes.Contains(body, []byte("collector exploded")) {
		t.Errorf("status %d, body %q", resp.StatusCode, body)
	}
	if len(log.lines) != 1 || !strings.Contains(log.lines[0], "collector exploded") {
		t.Errorf("logged %q", log.lines)
	}
}
