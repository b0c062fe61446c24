// Package tracing exports each probe as an OpenTelemetry span over
// OTLP/HTTP when tracing.otlp_endpoint is set. The span's trace and span
// ids are those the probe sent in its traceparent header, so the server's
// own span of the request (vLLM with --otlp-traces-endpoint) is its child
// and both show up as one trace in Tempo or Jaeger.
package tracing

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
)

// Exporter turns finished probes into spans and batches them to OTLP.
type Exporter struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
}

// New starts an exporter for c, or returns nil when no endpoint is set.
// report, if not nil, gets the outcome of every export (nil on success),
// and the SDK's own error handler (a raw Go log line per failed batch)
// gets nothing: the caller logs, on state changes.
func New(c config.Tracing, version string, report func(error)) (*Exporter, error) {
	if c.OTLPEndpoint == "" {
		return nil, nil
	}
	u, err := url.Parse(c.OTLPEndpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tracing.otlp_endpoint %q is not an http(s) URL", config.RedactURL(c.OTLPEndpoint))
	}
	timeout := time.Duration(c.Timeout)
	if timeout <= 0 {
		timeout = config.DefaultTracingTimeout
	}
	h := make(map[string]string, len(c.Headers)+len(c.Env.Headers))
	for k, v := range c.Env.Headers { // set only with the environment's endpoint
		h[http.CanonicalHeaderKey(k)] = string(v)
	}
	for k, v := range c.Headers { // the section's win
		h[http.CanonicalHeaderKey(k)] = string(v)
	}
	// A redirect is not followed: the headers (an API key) would go with it.
	client := &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	exp := &otlpHTTP{url: u.String(), shown: config.RedactURL(u.String()), headers: h, client: client, report: report}
	name := c.ServiceName
	if name == "" {
		name = "llm-prober"
	}
	res := resource.NewWithAttributes(semconv.SchemaURL,
		append(envResource(c.Env), semconv.ServiceName(name), semconv.ServiceVersion(version))...)
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		// The probe chose its ids (they are on the wire already).
		sdktrace.WithIDGenerator(probeIDs{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
	)
	return &Exporter{tp: tp, tracer: tp.Tracer("github.com/llm-prober/llm-prober/prober")}, nil
}

// Shutdown flushes the spans still batched and stops the exporter.
func (x *Exporter) Shutdown(ctx context.Context) error {
	if x == nil {
		return nil
	}
	return x.tp.Shutdown(ctx)
}

// ForceFlush exports the spans batched so far (tests, shutdown).
func (x *Exporter) ForceFlush(ctx context.Context) error {
	if x == nil {
		return nil
	}
	return x.tp.ForceFlush(ctx)
}

// Export records r as a client span, after the fact: start when the
// request was sent, events at the connection steps, the response headers,
// the first token and the end of decoding. Safe for concurrent use; a nil
// Exporter does nothing.
func (x *Exporter) Export(r *prober.Result) {
	if x == nil || r == nil || r.Trace.TraceID == "" || r.Start.IsZero() {
		return
	}
	ids, ok := parseIDs(r.Trace)
	if !ok {
		return
	}
	ctx := context.WithValue(context.Background(), idsKey{}, ids)
	_, span := x.tracer.Start(ctx, "probe "+r.Module,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(r.Start),
		trace.WithAttributes(attributes(r)...))
	end := r.Start.Add(r.E2EL)
	for _, ev := range events(r) {
		span.AddEvent(ev.name, trace.WithTimestamp(ev.at), trace.WithAttributes(ev.attrs...))
		end = later(end, ev.at)
	}
	if !r.Success() {
		span.SetStatus(codes.Error, string(r.Reason))
		if r.Err != nil {
			span.RecordError(r.Err, trace.WithTimestamp(end))
		}
	}
	span.End(trace.WithTimestamp(end))
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func attributes(r *prober.Result) []attribute.KeyValue {
	a := []attribute.KeyValue{
		attribute.String("llm_prober.probe_id", r.ID),
		attribute.String("llm_prober.target", r.Target),
		attribute.String("llm_prober.module", r.Module),
		attribute.String("gen_ai.request.model", r.Model),
		attribute.Bool("llm_prober.good", r.Good),
	}
	if r.HTTPStatus != 0 {
		a = append(a, attribute.Int("http.response.status_code", r.HTTPStatus))
	}
	if r.Success() {
		a = append(a, attribute.Int("gen_ai.usage.output_tokens", r.OutputTokens),
			attribute.Float64("llm_prober.ttft_seconds", r.TTFT.Seconds()),
			attribute.Float64("llm_prober.tpot_seconds", r.TPOT.Seconds()),
			attribute.Float64("llm_prober.e2el_seconds", r.E2EL.Seconds()))
		if r.UsageReported {
			a = append(a, attribute.Int("gen_ai.usage.input_tokens", r.PromptTokens))
		}
		if r.FinishReason != "" {
			a = append(a, attribute.StringSlice("gen_ai.response.finish_reasons", []string{r.FinishReason}))
		}
		if len(r.SLOViolations) > 0 {
			a = append(a, attribute.StringSlice("llm_prober.slo_violations", r.SLOViolations))
		}
	} else {
		a = append(a, attribute.String("error.type", string(r.Reason)))
	}
	return a
}

type event struct {
	name  string
	at    time.Time
	attrs []attribute.KeyValue
}

// events are the probe's phases that happened, in order.
func events(r *prober.Result) []event {
	var out []event
	add := func(name string, at time.Time, attrs ...attribute.KeyValue) {
		if !at.IsZero() {
			out = append(out, event{name, at, attrs})
		}
	}
	add("dns", r.Phases.DNSDone)
	add("connect", r.Phases.ConnectDone)
	add("tls", r.Phases.TLSDone)
	if r.Headers > 0 || r.HTTPStatus != 0 {
		add("headers", r.Start.Add(r.Headers), attribute.Int("http.response.status_code", r.HTTPStatus))
	}
	if r.HasTTFT {
		add("first token", r.Start.Add(r.TTFT))
	}
	if r.Success() {
		add("decode", r.Start.Add(r.E2EL), attribute.Int("gen_ai.usage.output_tokens", r.OutputTokens),
			attribute.Float64("llm_prober.tpot_seconds", r.TPOT.Seconds()))
	}
	return out
}

// envResource is OTEL_RESOURCE_ATTRIBUTES, which the exporter's own
// service.name, version (and id) follow and override.
func envResource(e config.FromEnv) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(e.Resource)+3)
	for _, a := range e.Resource {
		out = append(out, attribute.String(a.Key, a.Value))
	}
	return out
}
