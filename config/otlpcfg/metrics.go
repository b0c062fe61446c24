package otlpcfg

import (
	"net/url"
	"time"

	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
)

// OTLPMetrics pushes every probe as OpenTelemetry GenAI client metrics, and
// the servers' re-exported latency histograms as GenAI server metrics, to
// an OTLP/HTTP metrics endpoint (package otelmetrics). Off unless Endpoint
// is set; /metrics is the same either way.
type OTLPMetrics struct {
	// Endpoint is an OTLP/HTTP (protobuf) metrics URL, e.g.
	// http://otel-collector:4318/v1/metrics or Prometheus's
	// http://prometheus:9090/api/v1/otlp/v1/metrics.
	Endpoint string `yaml:"endpoint,omitempty"`
	// Interval is how often the cumulative histograms are pushed (default 15s).
	Interval model.Duration `yaml:"interval,omitempty"`
	// Timeout bounds one push, body included (default 10s, at most Interval).
	Timeout model.Duration `yaml:"timeout,omitempty"`
	// ServiceName is the service.name resource attribute (default llm-prober).
	ServiceName string `yaml:"service_name,omitempty"`
	// ServerMetrics translates the targets' re-exported server latency
	// histograms to gen_ai.server.* (default true; needs server_metrics).
	ServerMetrics *bool `yaml:"server_metrics,omitempty"`
	// HTTPClientConfig authenticates the push: headers and credentials
	// from files or ${ENV}, never inline; TLS verified unless told not to.
	// Redirects are not followed unless follow_redirects is set.
	HTTPClientConfig config.HTTPClientConfig `yaml:"http_client_config,omitempty"`
	// Env is what OTEL_* environment variables gave (ApplyEnv).
	Env FromEnv `yaml:"-"`
}

// Defaults of the otlp_metrics section.
const (
	DefaultOTLPMetricsInterval = 15 * time.Second
	DefaultOTLPMetricsTimeout  = 10 * time.Second
	// MinOTLPMetricsInterval keeps a typo (1ms) from turning every probe
	// into a push.
	MinOTLPMetricsInterval = time.Second
	MaxOTLPMetricsInterval = time.Hour
)

// Enabled reports whether metrics are pushed.
func (m *OTLPMetrics) Enabled() bool { return m.Endpoint != "" }

// Translate reports whether server histograms are translated too.
func (m *OTLPMetrics) Translate() bool { return m.ServerMetrics == nil || *m.ServerMetrics }

// PushInterval is Interval with its default.
func (m *OTLPMetrics) PushInterval() time.Duration {
	if m.Interval <= 0 {
		return DefaultOTLPMetricsInterval
	}
	return time.Duration(m.Interval)
}

// PushTimeout is Timeout with its default, never above the interval.
func (m *OTLPMetrics) PushTimeout() time.Duration {
	t := time.Duration(m.Timeout)
	if t <= 0 {
		t = DefaultOTLPMetricsTimeout
	}
	return min(t, m.PushInterval())
}

// CheckOTLPMetrics validates s (also bench's flags): an http(s) URL with a
// host, an interval in [1s, 1h], a timeout not negative. field prefixes
// the names in errors.
func CheckOTLPMetrics(m *OTLPMetrics) (field, msg string) {
	if m.Endpoint == "" {
		return "", ""
	}
	u, err := url.Parse(m.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "endpoint", RedactURL(m.Endpoint) + " is not an http(s) URL with a host (e.g. http://otel-collector:4318/v1/metrics)"
	}
	if iv := time.Duration(m.Interval); iv != 0 && (iv < MinOTLPMetricsInterval || iv > MaxOTLPMetricsInterval) {
		return "interval", "must be between 1s and 1h"
	}
	if m.Timeout < 0 {
		return "timeout", "must not be negative"
	}
	return "", ""
}

// MarshalYAML shows the endpoint with its credentials hidden (/config,
// debug logs); the client config's secrets are hidden by their type.
func (m OTLPMetrics) MarshalYAML() (any, error) {
	type plain OTLPMetrics
	m.Endpoint = RedactURL(m.Endpoint)
	return plain(m), nil
}
