package exposition

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// benchSource is 10,000 (target, module) pairs, each with a counter and a
// histogram of 20 classic buckets with native buckets and an exemplar:
// the shape of a large prober's /metrics.
type benchSource struct {
	ls    []LabelSet
	hists []*Histogram
}

func newBenchSource(n int) *benchSource {
	spec := NewHistogramSpec([]float64{.001, .005, .01, .02, .04, .06, .08, .1, .25, .5, .75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160}, 3, 160, time.Hour, "probe_id")
	s := &benchSource{}
	start := time.Unix(1700000000, 0)
	for i := range n {
		s.ls = append(s.ls, NewLabelSet(NewLabel("target", fmt.Sprintf("target-%05d", i)), NewLabel("module", "chat"), NewLabel("model", "llama-3-8b")))
		h := NewHistogram(spec, start)
		for k := range 3 {
			h.Observe(0.05+0.007*float64(k), fmt.Sprintf("%016x", i*10+k), start.Add(time.Duration(k)*time.Minute))
		}
		s.hists = append(s.hists, h)
	}
	return s
}

func (s *benchSource) WriteFamilies(w *Writer) {
	w.Family("bench_probes_total", "Probes.", dto.MetricType_COUNTER)
	for i := range s.ls {
		w.Counter(s.ls[i], nil, 3, 1700000000000000000)
	}
	w.WriteIfFull()
	w.Family("bench_ttft_seconds", "TTFT.", dto.MetricType_HISTOGRAM)
	for i := range s.ls {
		w.Histogram(s.ls[i], s.hists[i])
		w.WriteIfFull()
	}
}

// BenchmarkHandler serves 10,000 pairs through the handler in each format,
// gzipped as Prometheus asks, into a discarding response writer.
func BenchmarkHandler(b *testing.B) {
	h := Handler(prometheus.NewRegistry(), newBenchSource(10000), &logSink{})
	for _, tc := range []struct{ name, accept, encoding string }{
		{"text", "", "identity"},
		{"openmetrics-gzip", "application/openmetrics-text;version=1.0.0", "gzip"},
		{"protobuf-gzip", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", "gzip"},
		{"name-filter", "", "identity"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			url := "/metrics"
			if tc.name == "name-filter" {
				url += "?name[]=bench_probes_total"
			}
			req := httptest.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("Accept", tc.accept)
			req.Header.Set("Accept-Encoding", tc.encoding)
			for b.Loop() {
				h.ServeHTTP(discard{http.Header{}}, req)
			}
		})
	}
}

type discard struct{ h http.Header }

func (d discard) Header() http.Header       { return d.h }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}
