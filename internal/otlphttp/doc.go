// Package otlphttp owns what the two OTLP/HTTP exporters share (package
// tracing's spans, package otelmetrics's metrics): the POST of one
// Export*ServiceRequest with a protobuf body, the conversion of
// attributes, and the log of export failures on state changes. It
// replaces the SDK's otlp*http exporters, whose configuration code links
// gRPC into the binary. It imports OpenTelemetry's types and go-kit log,
// nothing of llm-prober's.
package otlphttp
