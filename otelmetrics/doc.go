// Package otelmetrics pushes OpenTelemetry GenAI metrics over OTLP/HTTP
// when otlp_metrics.endpoint (daemon) or --otlp-metrics.endpoint (bench)
// is set: every probe and bench request as the gen_ai.client.*
// histograms, and the servers' own latency histograms, re-exported by
// package collector, translated to gen_ai.server.* where the meaning
// matches. The names are pinned in one table (names.go) to one version of
// the semantic conventions, whose schema URL the resource carries.
//
// It owns the Meter (the SDK's aggregation with a periodic, cumulative
// push: a dead endpoint costs no queue), the OTLP/HTTP protobuf exporter,
// the push log and the server-histogram Producer. It may import config,
// backend and prober (the probe's Result), the OpenTelemetry metric SDK
// and the OTLP protobuf types; nothing imports it but cmd/llm-prober and
// its bench driver. It never changes /metrics.
package otelmetrics
