package otelmetrics

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"time"

	promcfg "github.com/prometheus/common/config"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/llm-prober/llm-prober/config"
)

// MaxSeries bounds the attribute sets of each instrument; past it, the SDK
// folds new ones into one otel.metric.overflow series. With the series
// bounded and cumulative pushes, the memory of a dead endpoint is bounded.
const MaxSeries = 2000

// Meter records requests as the GenAI client histograms and pushes them,
// with the translated server histograms, every interval. Record never
// waits on the network: it updates in-memory aggregates, and the push
// runs on the SDK's reader goroutine.
type Meter struct {
	mp                    *sdkmetric.MeterProvider
	duration, ttfc, tpoc  metric.Float64Histogram
	tokens                metric.Int64Histogram
	inputType, outputType attribute.KeyValue
}

// instanceID is this process's service.instance.id.
var instanceID = func() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}()

// Settings are what New needs besides the config section.
type Settings struct {
	Version string
	// Report gets every push's outcome (nil on success).
	Report func(error)
	// Service is service.name when the config gives none (default
	// llm-prober).
	Service string
	// Server, when not nil, adds the translated server histograms to
	// every push.
	Server sdkmetric.Producer
}

// New starts a Meter pushing to c.Endpoint, or returns nil when no
// endpoint is set.
func New(c config.OTLPMetrics, s Settings) (*Meter, error) {
	if !c.Enabled() {
		return nil, nil
	}
	if field, msg := config.CheckOTLPMetrics(&c); field != "" {
		return nil, fmt.Errorf("otlp_metrics.%s: %s", field, msg)
	}
	u, _ := url.Parse(c.Endpoint)
	client, err := promcfg.NewClientFromConfig(c.HTTPClientConfig, "otlp_metrics")
	if err != nil {
		return nil, fmt.Errorf("otlp_metrics.http_client_config: %w", err)
	}
	client.Timeout = c.PushTimeout()
	if !c.HTTPClientConfig.FollowRedirects {
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	report := s.Report
	if report == nil {
		report = func(error) {}
	}
	// The environment's headers, but for those http_client_config sets
	// (the section wins; its client would add them beside ours).
	headers := map[string]string{}
	for k, v := range c.Env.Headers {
		if !sectionSets(c.HTTPClientConfig, k) {
			headers[k] = string(v)
		}
	}
	exp := &otlpHTTP{url: u.String(), shown: config.RedactURL(u.String()), client: client, report: report, headers: headers}
	name := c.ServiceName
	if name == "" {
		name = "llm-prober"
	}
	if s.Service != "" && c.ServiceName == "" {
		name = s.Service
	}
	// service.instance.id keeps two processes' cumulative series apart
	// (Prometheus makes it the instance label): one id per process.
	res := resource.NewWithAttributes(SchemaURL, append(envResource(c.Env), semconv.ServiceName(name),
		semconv.ServiceVersion(s.Version), semconv.ServiceInstanceID(instanceID))...)
	ropts := []sdkmetric.PeriodicReaderOption{sdkmetric.WithInterval(c.PushInterval()), sdkmetric.WithTimeout(c.PushTimeout())}
	if s.Server != nil {
		ropts = append(ropts, sdkmetric.WithProducer(s.Server))
	}
	// No exemplars: a probe has no sampled trace context here (its span
	// is package tracing's), and a reservoir per bucket per series would
	// be most of the memory.
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithCardinalityLimit(MaxSeries),
		sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, ropts...)))
	m := &Meter{mp: mp, inputType: keyTokenType.String(tokenInput), outputType: keyTokenType.String(tokenOutput)}
	meter := mp.Meter("github.com/llm-prober/llm-prober/otelmetrics", metric.WithSchemaURL(SchemaURL))
	f := func(i instrument) metric.Float64Histogram {
		h, err := meter.Float64Histogram(i.name, metric.WithUnit(i.unit), metric.WithDescription(i.desc),
			metric.WithExplicitBucketBoundaries(i.bounds...))
		if err != nil {
			panic(err) // the table's names are valid
		}
		return h
	}
	m.duration, m.ttfc, m.tpoc = f(clientDuration), f(clientTTFC), f(clientTPOC)
	m.tokens, err = meter.Int64Histogram(clientTokens.name, metric.WithUnit(clientTokens.unit),
		metric.WithDescription(clientTokens.desc), metric.WithExplicitBucketBoundaries(clientTokens.bounds...))
	if err != nil {
		panic(err)
	}
	return m, nil
}

// Request is one finished request, client side, in the conventions'
// terms; FromProbe and the bench driver fill it.
type Request struct {
	Operation string // OperationChat or OperationTextCompletion
	Provider  string // the backend
	Model     string
	Address   string
	Port      int
	Target    string // optional: llm_prober.target
	Module    string // optional: llm_prober.module

	Duration time.Duration // to the end of the stream, or to the failure
	TTFC     time.Duration
	HasTTFC  bool
	Chunks   []time.Duration // gaps between content chunks after the first

	InputTokens, OutputTokens int
	HasInput, HasOutput       bool

	Error string // our failure reason; "" on success
}

// Record adds r to the histograms. Safe for concurrent use; a nil Meter
// does nothing.
func (m *Meter) Record(r *Request) {
	if m == nil || r == nil {
		return
	}
	kv := make([]attribute.KeyValue, 0, 10)
	kv = append(kv, keyOperation.String(r.Operation), keyProvider.String(r.Provider), keyModel.String(r.Model))
	if r.Address != "" {
		kv = append(kv, keyAddress.String(r.Address))
		if r.Port > 0 {
			kv = append(kv, keyPort.Int(r.Port))
		}
	}
	if r.Target != "" {
		kv = append(kv, keyTarget.String(r.Target))
	}
	if r.Module != "" {
		kv = append(kv, keyModule.String(r.Module))
	}
	ctx := context.Background()
	// error.type is on the duration only, where the conventions want it;
	// the other histograms keep one series per request kind.
	base := attribute.NewSet(kv...)
	if r.Error != "" {
		kv = append(kv, keyError.String(r.Error))
	}
	m.duration.Record(ctx, r.Duration.Seconds(), metric.WithAttributeSet(attribute.NewSet(kv...)))
	opt := metric.WithAttributeSet(base)
	if r.HasTTFC {
		m.ttfc.Record(ctx, r.TTFC.Seconds(), opt)
	}
	for _, d := range r.Chunks {
		m.tpoc.Record(ctx, d.Seconds(), opt)
	}
	if r.HasInput {
		m.tokens.Record(ctx, int64(r.InputTokens), metric.WithAttributeSet(withKV(base, m.inputType)))
	}
	if r.HasOutput {
		m.tokens.Record(ctx, int64(r.OutputTokens), metric.WithAttributeSet(withKV(base, m.outputType)))
	}
}

func withKV(s attribute.Set, kv attribute.KeyValue) attribute.Set {
	return attribute.NewSet(append(s.ToSlice(), kv)...)
}

// ForceFlush pushes now (tests, the end of a bench run).
func (m *Meter) ForceFlush(ctx context.Context) error {
	if m == nil {
		return nil
	}
	return m.mp.ForceFlush(ctx)
}

// Shutdown pushes what is recorded and stops, within ctx.
func (m *Meter) Shutdown(ctx context.Context) error {
	if m == nil {
		return nil
	}
	return m.mp.Shutdown(ctx)
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

// sectionSets reports whether hc sends header k itself.
func sectionSets(hc promcfg.HTTPClientConfig, k string) bool {
	k = http.CanonicalHeaderKey(k)
	if k == "Authorization" && (hc.Authorization != nil || hc.BasicAuth != nil || hc.BearerToken != "" || hc.BearerTokenFile != "" || hc.OAuth2 != nil) {
		return true
	}
	if hc.HTTPHeaders == nil {
		return false
	}
	for name := range hc.HTTPHeaders.Headers {
		if http.CanonicalHeaderKey(name) == k {
			return true
		}
	}
	return false
}
