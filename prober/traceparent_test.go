package prober

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/llm-prober/llm-prober/internal/exposition"
)

var traceparentRe = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-01$`)

// A probe sends a sampled W3C traceparent and keeps X-Request-Id; its
// latency exemplars then carry trace_id beside probe_id, in OpenMetrics
// and in protobuf, as Prometheus parses them.
func TestTraceparentAndExemplar(t *testing.T) {
	headers := make(chan http.Header, 1) // the handler's goroutine hands them over
	var events []event
	for _, raw := range fixtureEvents(t, "vllm-sim-chat.sse") {
		events = append(events, event{raw: raw})
	}
	inner := eventsHandler("text/event-stream", events)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case headers <- r.Header.Clone():
		default:
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	r := runProbe(t, srv.URL, chatModule(), 10*time.Second)
	if !r.Success() {
		t.Fatalf("probe failed: %v", r.Err)
	}
	got := <-headers
	m := traceparentRe.FindStringSubmatch(got.Get("traceparent"))
	if m == nil {
		t.Fatalf("traceparent %q is not a sampled W3C header", got.Get("traceparent"))
	}
	if m[1] != r.Trace.TraceID || m[2] != r.Trace.SpanID {
		t.Errorf("traceparent %q, result's trace %+v", got.Get("traceparent"), r.Trace)
	}
	if got.Get("X-Request-Id") != r.ID {
		t.Errorf("X-Request-Id %q, want %q", got.Get("X-Request-Id"), r.ID)
	}
	if again := NewTraceContext("probe-1"); again.TraceID == r.Trace.TraceID {
		t.Error("trace ids repeat")
	}
	id := NewProbeID()
	if tc := NewTraceContext(id); tc.TraceID != "0000000000000000"+id || len(tc.SpanID) != 16 {
		t.Errorf("probe %s: trace context %+v, want the id left-padded", id, tc)
	}
	if tc := NewTraceContext("0000000000000000"); !traceparentRe.MatchString(tc.Traceparent()) || tc.TraceID == "00000000000000000000000000000000" {
		t.Errorf("an all-zero probe id gave %+v", tc)
	}

	metrics := NewMetrics(prometheus.NewRegistry())
	metrics.Init(r.Target, r.Model, r.Module, time.Minute, nil)
	metrics.Record(r, time.Now())
	var om bytes.Buffer
	w := exposition.NewWriter(&om, exposition.FormatOpenMetrics)
	metrics.WriteFamilies(w)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `# {probe_id="` + r.ID + `",trace_id="` + r.Trace.TraceID + `"}`
	for _, fam := range []string{"llm_prober_time_to_first_token_seconds_bucket", "llm_prober_e2e_latency_seconds_bucket"} {
		if !hasLine(om.String(), fam, want) {
			t.Errorf("no %s line with exemplar %s", fam, want)
		}
	}
	var pb bytes.Buffer
	w = exposition.NewWriter(&pb, exposition.FormatProtobuf)
	metrics.WriteFamilies(w)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	dec := expfmt.NewDecoder(&pb, expfmt.NewFormat(expfmt.TypeProtoDelim))
	found := false
	for {
		mf := new(dto.MetricFamily)
		if err := dec.Decode(mf); err != nil {
			break
		}
		if mf.GetName() != "llm_prober_time_to_first_token_seconds" {
			continue
		}
		for _, b := range mf.GetMetric()[0].GetHistogram().GetBucket() {
			ex := b.GetExemplar()
			if ex == nil {
				continue
			}
			l := map[string]string{}
			for _, lp := range ex.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			found = l["probe_id"] == r.ID && l["trace_id"] == r.Trace.TraceID
		}
	}
	if !found {
		t.Error("protobuf TTFT exemplar without probe_id and trace_id")
	}
}

func hasLine(s, prefix, sub string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) && strings.Contains(l, sub) {
			return true
		}
	}
	return false
}
