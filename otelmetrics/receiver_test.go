package otelmetrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// receiver is a loopback OTLP/HTTP metrics endpoint keeping the last
// push (the histograms are cumulative: it holds everything).
type receiver struct {
	mu      sync.Mutex
	last    []*metricspb.ResourceMetrics
	pushes  int
	headers http.Header
	srv     *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.srv = httptest.NewServer(rc)
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) url() string { return rc.srv.URL + "/v1/metrics" }

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/metrics" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want protobuf on /v1/metrics", http.StatusUnsupportedMediaType)
		return
	}
	var got []*metricspb.ResourceMetrics
	for len(body) > 0 { // ExportMetricsServiceRequest: resource_metrics = 1
		num, typ, n := protowire.ConsumeTag(body)
		if n < 0 || num != 1 || typ != protowire.BytesType {
			http.Error(w, "unexpected field", http.StatusBadRequest)
			return
		}
		b, m := protowire.ConsumeBytes(body[n:])
		body = body[n+m:]
		var rm metricspb.ResourceMetrics
		if err := proto.Unmarshal(b, &rm); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got = append(got, &rm)
	}
	rc.mu.Lock()
	rc.last, rc.headers = got, r.Header.Clone()
	rc.pushes++
	rc.mu.Unlock()
}

// points are the last push's data points of the histogram name.
func (rc *receiver) points(name string) []*metricspb.HistogramDataPoint {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []*metricspb.HistogramDataPoint
	for _, rm := range rc.last {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				if m.GetName() == name {
					out = append(out, m.GetHistogram().GetDataPoints()...)
				}
			}
		}
	}
	return out
}

// attrs are a data point's attributes as strings (ints printed).
func attrs(p *metricspb.HistogramDataPoint) map[string]string {
	out := map[string]string{}
	for _, kv := range p.GetAttributes() {
		v := kv.GetValue()
		if _, ok := v.GetValue().(*commonpb.AnyValue_IntValue); ok {
			out[kv.GetKey()] = strconv.FormatInt(v.GetIntValue(), 10)
		} else {
			out[kv.GetKey()] = v.GetStringValue()
		}
	}
	return out
}

// sum and count of the points matching want's attributes.
func totals(ps []*metricspb.HistogramDataPoint, want map[string]string) (count uint64, sum float64) {
next:
	for _, p := range ps {
		a := attrs(p)
		for k, v := range want {
			if a[k] != v {
				continue next
			}
		}
		count += p.GetCount()
		sum += p.GetSum()
	}
	return count, sum
}
