package otelmetrics

import (
	"context"
	"net/http"

	"github.com/llm-prober/llm-prober/internal/otlphttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/proto"
)

// otlpHTTP is a metric Exporter speaking OTLP/HTTP with protobuf bodies,
// as package tracing's span exporter does and for the same reason: the
// SDK's otlpmetrichttp links gRPC and grpc-gateway through its shared
// configuration code. Only histograms are converted: they are all this
// package records or translates.
type otlpHTTP struct {
	url     string
	shown   string // url for messages, credentials hidden
	client  *http.Client
	headers map[string]string // OTEL_EXPORTER_OTLP_*HEADERS, with the environment's endpoint only
	report  func(error)       // every outcome, nil on success
}

var _ sdkmetric.Exporter = (*otlpHTTP)(nil)

// Temporality is cumulative: a push that fails loses nothing, the next
// one carries the totals, so there is no queue of unsent data to bound.
func (*otlpHTTP) Temporality(sdkmetric.InstrumentKind) metricdata.Temporality {
	return metricdata.CumulativeTemporality
}

func (*otlpHTTP) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

// Export POSTs one ExportMetricsServiceRequest. Its outcome goes to
// report (the structured log, on state changes), not to the SDK, whose
// error handler is global and would print a raw line per failed push.
func (e *otlpHTTP) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	e.report(e.post(ctx, rm))
	return nil
}

func (e *otlpHTTP) post(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	msg := resourceMetrics(rm)
	if msg == nil {
		return nil
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		return err
	}
	return otlphttp.Post(ctx, e.client, e.url, e.shown, "OTLP metrics push", e.headers, b)
}

func (*otlpHTTP) ForceFlush(context.Context) error { return nil }

func (e *otlpHTTP) Shutdown(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}

// resourceMetrics converts rm's histograms; nil when it has none.
func resourceMetrics(rm *metricdata.ResourceMetrics) *metricspb.ResourceMetrics {
	out := &metricspb.ResourceMetrics{SchemaUrl: rm.Resource.SchemaURL(),
		Resource: &resourcepb.Resource{Attributes: otlphttp.KeyValues(rm.Resource.Attributes())}}
	for _, sm := range rm.ScopeMetrics {
		ps := &metricspb.ScopeMetrics{SchemaUrl: sm.Scope.SchemaURL,
			Scope: &commonpb.InstrumentationScope{Name: sm.Scope.Name, Version: sm.Scope.Version}}
		for _, m := range sm.Metrics {
			var h *metricspb.Histogram
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				h = histogram(d)
			case metricdata.Histogram[int64]:
				h = histogram(d)
			}
			if h == nil || len(h.DataPoints) == 0 {
				continue
			}
			ps.Metrics = append(ps.Metrics, &metricspb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit,
				Data: &metricspb.Metric_Histogram{Histogram: h}})
		}
		if len(ps.Metrics) > 0 {
			out.ScopeMetrics = append(out.ScopeMetrics, ps)
		}
	}
	if len(out.ScopeMetrics) == 0 {
		return nil
	}
	return out
}

func histogram[N int64 | float64](d metricdata.Histogram[N]) *metricspb.Histogram {
	h := &metricspb.Histogram{AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE}
	if d.Temporality == metricdata.DeltaTemporality {
		h.AggregationTemporality = metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
	}
	for _, p := range d.DataPoints {
		sum := float64(p.Sum)
		dp := &metricspb.HistogramDataPoint{
			Attributes:        otlphttp.KeyValues(p.Attributes.ToSlice()),
			StartTimeUnixNano: uint64(p.StartTime.UnixNano()),
			TimeUnixNano:      uint64(p.Time.UnixNano()),
			Count:             p.Count,
			Sum:               &sum,
			BucketCounts:      p.BucketCounts,
			ExplicitBounds:    p.Bounds,
		}
		if v, ok := p.Min.Value(); ok {
			f := float64(v)
			dp.Min = &f
		}
		if v, ok := p.Max.Value(); ok {
			f := float64(v)
			dp.Max = &f
		}
		h.DataPoints = append(h.DataPoints, dp)
	}
	return h
}
