package tracing

import (
	"context"
	"net/http"

	"github.com/llm-prober/llm-prober/internal/otlphttp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpHTTP is a SpanExporter speaking OTLP/HTTP with protobuf bodies. It
// replaces the SDK's otlptracehttp, whose configuration code links gRPC
// and grpc-gateway into the binary (4.7 MB for an exporter that never
// uses them); the span messages are the same generated OTLP types.
type otlpHTTP struct {
	url     string
	headers map[string]string
	client  *http.Client
	report  func(error) // New's; nil: errors go to the SDK
	shown   string      // url for messages, credentials hidden
}

var _ sdktrace.SpanExporter = (*otlpHTTP)(nil)

// ExportSpans POSTs one ExportTraceServiceRequest. A non-2xx answer is an
// error; the batch is dropped either way (probe spans are not worth a
// retry queue), so an error handed to report is not returned too.
func (e *otlpHTTP) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.post(ctx, spans)
	if e.report == nil {
		return err
	}
	e.report(err)
	return nil
}

func (e *otlpHTTP) post(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	rs, err := proto.Marshal(resourceSpans(spans))
	if err != nil {
		return err
	}
	return otlphttp.Post(ctx, e.client, e.url, e.shown, "OTLP export", e.headers, rs)
}

func (e *otlpHTTP) Shutdown(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}

// resourceSpans groups spans under their (one) resource and scope.
func resourceSpans(spans []sdktrace.ReadOnlySpan) *tracepb.ResourceSpans {
	first := spans[0]
	out := &tracepb.ResourceSpans{
		Resource:  &resourcepb.Resource{Attributes: otlphttp.KeyValues(first.Resource().Attributes())},
		SchemaUrl: first.Resource().SchemaURL(),
	}
	scopes := map[string]*tracepb.ScopeSpans{}
	for _, s := range spans {
		sc := s.InstrumentationScope()
		ss := scopes[sc.Name+"\x00"+sc.Version]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: sc.Name, Version: sc.Version}, SchemaUrl: sc.SchemaURL}
			scopes[sc.Name+"\x00"+sc.Version] = ss
			out.ScopeSpans = append(out.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, span(s))
	}
	return out
}

func span(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	p := &tracepb.Span{
		TraceId:           tid[:],
		SpanId:            sid[:],
		Name:              s.Name(),
		Kind:              kind(s.SpanKind()),
		StartTimeUnixNano: uint64(s.StartTime().UnixNano()),
		EndTimeUnixNano:   uint64(s.EndTime().UnixNano()),
		Attributes:        otlphttp.KeyValues(s.Attributes()),
		Flags:             uint32(sc.TraceFlags()),
	}
	if parent := s.Parent(); parent.SpanID().IsValid() {
		psid := parent.SpanID()
		p.ParentSpanId = psid[:]
	}
	for _, ev := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{
			TimeUnixNano: uint64(ev.Time.UnixNano()),
			Name:         ev.Name,
			Attributes:   otlphttp.KeyValues(ev.Attributes),
		})
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: st.Description}
	case codes.Ok:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	}
	return p
}

func kind(k trace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case trace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case trace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case trace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case trace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_INTERNAL
}
