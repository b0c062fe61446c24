package exposition

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// Hostile text: every character the formats escape, and some they do not.
const (
	hostileHelp  = "Help with \\ a backslash, \"quotes\", a\nnewline, a tab\tand ünïcode ✓."
	hostileValue = "a\"b\\c\nd ✓"
	hostileEx    = "id\"with\\escapes\n"
)

var parityCreated = time.Unix(1700000000, 123456789)

// observations go into every kind of bucket: classic and native, negative,
// zero and +Inf; each classic bucket's exemplar is its last observation.
var parityObservations = []struct {
	v  float64
	ex string
}{
	{0.05, "first"}, {0, ""}, {-0.5, ""}, {0.3, hostileEx}, {0.07, "p1"}, {2.5, "inf"}, {1e-3, ""}, {0.99, ""},
}

// parityPair builds the same families twice: as client_golang's registry
// gathers them (the reference promhttp serves) and as a Source with a
// gathered family in front, as the /metrics handler is used.
func parityPair(t *testing.T) (ref prometheus.Gatherer, mine prometheus.Gatherer, src Source) {
	t.Helper()
	ls := prometheus.Labels{"target": hostileValue, "module": "ünïcode ✓", "empty": ""}
	up := prometheus.NewGauge(prometheus.GaugeOpts{Name: "hostile_a_up", Help: hostileHelp, ConstLabels: ls})
	up.Set(1)
	events := prometheus.MustNewConstMetricWithCreatedTimestamp(
		prometheus.NewDesc("hostile_events_total", hostileHelp, []string{"reason"}, ls),
		prometheus.CounterValue, 42, parityCreated, hostileValue)
	hist := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "hostile_latency_seconds", Help: hostileHelp, ConstLabels: ls, Buckets: []float64{0.1, 1},
		NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 100,
		NativeHistogramMinResetDuration: time.Hour,
		// This package keeps no native exemplars (Prometheus falls back to
		// the classic buckets' ones).
		NativeHistogramMaxExemplars: -1,
	})
	for _, o := range parityObservations {
		if o.ex == "" {
			hist.Observe(o.v)
		} else {
			hist.(prometheus.ExemplarObserver).ObserveWithExemplar(o.v, prometheus.Labels{"probe_id": o.ex})
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(up)
	mfs, err := prometheus.Gatherers{reg, prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		var hm dto.Metric
		if err := hist.Write(&hm); err != nil {
			return nil, err
		}
		var em dto.Metric
		if err := events.Write(&em); err != nil {
			return nil, err
		}
		return []*dto.MetricFamily{
			{Name: proto.String("hostile_events_total"), Help: proto.String(hostileHelp), Type: dto.MetricType_COUNTER.Enum(), Metric: []*dto.Metric{&em}},
			{Name: proto.String("hostile_latency_seconds"), Help: proto.String(hostileHelp), Type: dto.MetricType_HISTOGRAM.Enum(), Metric: []*dto.Metric{&hm}},
		}, nil
	})}.Gather()
	if err != nil {
		t.Fatal(err)
	}
	// client_golang stamps creation and exemplars with the wall clock:
	// ours is fed the same times.
	h := mfs[2].Metric[0].Histogram
	created := h.CreatedTimestamp.AsTime()
	exTimes := map[string]time.Time{}
	for _, b := range h.Bucket {
		if e := b.Exemplar; e != nil {
			exTimes[e.Label[0].GetValue()] = e.Timestamp.AsTime()
		}
	}
	spec := NewHistogramSpec([]float64{0.1, 1}, 3, 100, time.Hour, "probe_id")
	ours := NewHistogram(spec, created)
	for _, o := range parityObservations {
		at, ok := exTimes[o.ex]
		if !ok {
			at = created
		}
		ours.Observe(o.v, o.ex, at)
	}

	var labels []Label
	for k, v := range ls {
		labels = append(labels, NewLabel(k, v))
	}
	set := NewLabelSet(labels...)
	reason := NewLabel("reason", hostileValue)
	src = sourceFunc(func(w *Writer) {
		w.Family("hostile_events_total", hostileHelp, dto.MetricType_COUNTER)
		w.Counter(set, &reason, 42, parityCreated.UnixNano())
		w.Family("hostile_latency_seconds", hostileHelp, dto.MetricType_HISTOGRAM)
		w.Histogram(set, ours)
	})
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return mfs, nil }), reg, src
}

type sourceFunc func(w *Writer)

func (f sourceFunc) WriteFamilies(w *Writer) { f(w) }

// The handler answers every request as promhttp.HandlerFor with OpenMetrics
// does: same Content-Type (escaping scheme included), Content-Encoding and
// Vary, byte-identical text and OpenMetrics, the same protobuf messages,
// and the same name[] filtering.
func TestHandlerMatchesPromhttp(t *testing.T) {
	refG, mineG, src := parityPair(t)
	ref := httptest.NewServer(promhttp.HandlerFor(refG, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	t.Cleanup(ref.Close)
	mine := httptest.NewServer(Handler(mineG, src, &logSink{}))
	t.Cleanup(mine.Close)

	accepts := []string{
		"", "*/*", "text/plain", "text/plain;version=0.0.4",
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", // a browser
		"application/openmetrics-text;version=1.0.0",
		"application/openmetrics-text;version=0.0.1",
		"application/openmetrics-text;version=1.0.0;escaping=allow-utf-8,text/plain;version=0.0.4;q=0.5",
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=dots",
		// Prometheus 3's default scrape protocols.
		"application/openmetrics-text;version=1.0.0;escaping=underscores;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=underscores;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1",
	}
	queries := []string{"", "?name[]=hostile_a_up", "?name[]=hostile_latency_seconds&name[]=hostile_events_total", "?name[]=nope"}
	for _, accept := range accepts {
		for _, enc := range []string{"identity", "gzip", "gzip;q=0", "br, gzip;q=0.5", "gzip;q=0.5, identity", "*"} {
			for _, q := range queries {
				want := fetch(t, ref.URL+q, accept, enc)
				got := fetch(t, mine.URL+q, accept, enc)
				where := "Accept " + accept + ", Accept-Encoding " + enc + ", " + q
				for _, h := range []string{"Content-Type", "Content-Encoding"} {
					if got.h.Get(h) != want.h.Get(h) {
						t.Errorf("%s: %s %q, promhttp %q", where, h, got.h.Get(h), want.h.Get(h))
					}
				}
				if !slices.Equal(got.h.Values("Vary"), want.h.Values("Vary")) {
					t.Errorf("%s: Vary %q, promhttp %q", where, got.h.Values("Vary"), want.h.Values("Vary"))
				}
				if got.format == FormatProtobuf {
					assertSameFamilies(t, where, got.body, want.body)
				} else if !bytes.Equal(got.body, want.body) {
					t.Errorf("%s: body differs\n--- ours\n%s\n--- promhttp\n%s", where, got.body, want.body)
				}
			}
		}
	}
}

type answer struct {
	h      http.Header
	body   []byte
	format Format
}

// fetch gets url and undoes gzip itself, so that the encoding is seen.
func fetch(t *testing.T, url, accept, encoding string) answer {
	t.Helper()
	resp, body := get(t, url, accept, encoding)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d: %s", url, resp.StatusCode, body)
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	_, format := negotiate(http.Header{"Accept": {accept}})
	return answer{h: resp.Header, body: body, format: format}
}

// assertSameFamilies compares protobuf expositions message by message.
func assertSameFamilies(t *testing.T, where string, got, want []byte) {
	t.Helper()
	g, err := decodeProtobuf(bytes.NewReader(got))
	if err != nil {
		t.Fatalf("%s: ours does not decode: %v", where, err)
	}
	w, err := decodeProtobuf(bytes.NewReader(want))
	if err != nil {
		t.Fatalf("%s: promhttp's does not decode: %v", where, err)
	}
	if len(g) != len(w) {
		t.Errorf("%s: %d families, promhttp %d", where, len(g), len(w))
		return
	}
	for i := range w {
		if !proto.Equal(g[i], w[i]) {
			t.Errorf("%s: family %d differs\n--- ours\n%v\n--- promhttp\n%v", where, i, g[i], w[i])
		}
	}
}
