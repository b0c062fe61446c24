// Package otlpcfg owns the configuration of OTLP export: the tracing
// section (probe spans) and the otlp_metrics section (GenAI metrics),
// their defaults and checks, what the OTEL_EXPORTER_OTLP_* environment
// variables add to them (env.go), and the URL redaction that shows an endpoint
// without its credentials. config names its types (config.Tracing,
// config.OTLPMetrics); bench checks its OTLP flags with the same rules.
//
// It may import the standard library and prometheus/common only; config
// imports it, never the other way (config/layers_test.go).
package otlpcfg
