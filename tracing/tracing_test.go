package tracing

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	promcfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
)

// receiver is a loopback OTLP/HTTP traces endpoint.
type receiver struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	service string
	headers http.Header
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.headers = r.Header.Clone()
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want protobuf on /v1/traces", http.StatusUnsupportedMediaType)
		return
	}
	// ExportTraceServiceRequest: repeated ResourceSpans resource_spans = 1.
	for len(body) > 0 {
		num, typ, n := protowire.ConsumeTag(body)
		body = body[n:]
		if num != 1 || typ != protowire.BytesType {
			http.Error(w, "unexpected field", http.StatusBadRequest)
			return
		}
		b, n := protowire.ConsumeBytes(body)
		body = body[n:]
		var rs tracepb.ResourceSpans
		if err := proto.Unmarshal(b, &rs); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				rc.service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			rc.spans = append(rc.spans, ss.GetSpans()...)
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// llmServer streams a captured vLLM chat answer and keeps the request's
// traceparent header.
func llmServer(t *testing.T, status int, traceparent *string) *httptest.Server {
	t.Helper()
	sse, err := os.ReadFile("../prober/testdata/sse/vllm-sim-chat.sse")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*traceparent = r.Header.Get("traceparent")
		_, _ = io.Copy(io.Discard, r.Body)
		if status != http.StatusOK {
			http.Error(w, "overloaded", status)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(sse)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func probe(t *testing.T, url string) *prober.Result {
	t.Helper()
	tg := &config.Target{Name: "t1", URL: url, Model: "m", Timeout: model.Duration(5 * time.Second)}
	m := &config.Module{Name: "chat", API: config.APIChat, MaxTokens: 16,
		Messages: []config.Message{{Role: "user", Content: "hi"}}}
	client, err := prober.NewClient(tg, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return prober.Run(ctx, client, tg, m, prober.NewProbeID(), "test")
}

// The exported span is the probe's: the trace and span ids of the
// traceparent it sent (so the server's span is its child), the phases as
// events, and the outcome; failures are error spans.
func TestExportOverOTLPHTTP(t *testing.T) {
	rc := &receiver{}
	otlp := httptest.NewServer(rc)
	defer otlp.Close()
	x, err := New(config.Tracing{OTLPEndpoint: otlp.URL + "/v1/traces", ServiceName: "prober-test",
		Headers: map[string]promcfg.Secret{"X-Scope-OrgID": "team-a"}}, "v0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Shutdown(context.Background())

	var sent, sentFail string
	ok := probe(t, llmServer(t, http.StatusOK, &sent).URL)
	bad := probe(t, llmServer(t, http.StatusServiceUnavailable, &sentFail).URL)
	if !ok.Success() || bad.Success() {
		t.Fatalf("probes: ok %v (%v), bad %v", ok.Success(), ok.Err, bad.Success())
	}
	x.Export(ok)
	x.Export(bad)
	if err := x.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}

	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.spans) != 2 {
		t.Fatalf("%d spans received, want 2", len(rc.spans))
	}
	if rc.service != "prober-test" || rc.headers.Get("X-Scope-OrgID") != "team-a" {
		t.Errorf("service.name %q, X-Scope-OrgID %q", rc.service, rc.headers.Get("X-Scope-OrgID"))
	}
	byID := map[string]*tracepb.Span{}
	for _, s := range rc.spans {
		byID[hexOf(s.GetTraceId())] = s
	}
	s := byID[ok.Trace.TraceID]
	if s == nil {
		t.Fatalf("no span with the probe's trace id %s", ok.Trace.TraceID)
	}
	if want := "00-" + hexOf(s.GetTraceId()) + "-" + hexOf(s.GetSpanId()) + "-01"; sent != want {
		t.Errorf("traceparent sent %q, span is %s: the server's span would not be its child", sent, want)
	}
	if s.GetKind() != tracepb.Span_SPAN_KIND_CLIENT || s.GetName() != "probe chat" || len(s.GetParentSpanId()) != 0 {
		t.Errorf("span kind %v name %q parent %x", s.GetKind(), s.GetName(), s.GetParentSpanId())
	}
	var names []string
	for _, ev := range s.GetEvents() {
		names = append(names, ev.GetName())
		if ev.GetTimeUnixNano() < s.GetStartTimeUnixNano() || ev.GetTimeUnixNano() > s.GetEndTimeUnixNano() {
			t.Errorf("event %s outside the span", ev.GetName())
		}
	}
	if got := strings.Join(names, ","); got != "connect,headers,first token,decode" {
		t.Errorf("events %s, want connect,headers,first token,decode", got)
	}
	if d := time.Duration(s.GetEndTimeUnixNano() - s.GetStartTimeUnixNano()); d != ok.E2EL {
		t.Errorf("span lasts %v, probe E2E %v", d, ok.E2EL)
	}
	if attr(s, "llm_prober.probe_id") != ok.ID || attr(s, "llm_prober.target") != "t1" {
		t.Errorf("attributes %v", s.GetAttributes())
	}

	f := byID[bad.Trace.TraceID]
	if f == nil || f.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || attr(f, "error.type") != "http_5xx" {
		t.Errorf("failed probe's span: %v", f)
	}
	if sentFail == "" {
		t.Error("the failed probe sent no traceparent")
	}
}

func TestNoEndpointNoExporter(t *testing.T) {
	x, err := New(config.Tracing{}, "v0", nil)
	if x != nil || err != nil {
		t.Fatalf("New without endpoint = %v, %v", x, err)
	}
	x.Export(&prober.Result{}) // a nil exporter is a no-op
	if _, err := New(config.Tracing{OTLPEndpoint: "localhost:4318"}, "v0", nil); err == nil {
		t.Error("an endpoint without scheme should fail")
	}
}

func attr(s *tracepb.Span, key string) string {
	for _, a := range s.GetAttributes() {
		if a.GetKey() == key {
			return a.GetValue().GetStringValue()
		}
	}
	return ""
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
