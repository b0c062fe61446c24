package otlpcfg

import (
	"fmt"
	"net/url"
	"time"

	promcfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
)

// Tracing exports each probe as an OpenTelemetry span. Every probe sends a
// W3C traceparent header whatever this says; with OTLPEndpoint set, the
// prober also exports its own span, the parent of the server's.
type Tracing struct {
	// OTLPEndpoint is an OTLP/HTTP (protobuf) traces URL, e.g.
	// http://otel-collector:4318/v1/traces. Empty: no export.
	OTLPEndpoint string `yaml:"otlp_endpoint,omitempty"`
	// Headers are sent with every export (e.g. an API key for a vendor).
	Headers map[string]promcfg.Secret `yaml:"headers,omitempty"`
	// Timeout bounds one export request (default 10s).
	Timeout model.Duration `yaml:"timeout,omitempty"`
	// ServiceName is the service.name resource attribute (default
	// llm-prober).
	ServiceName string `yaml:"service_name,omitempty"`
	// Env is what OTEL_* environment variables gave (ApplyEnv).
	Env FromEnv `yaml:"-"`
}

// DefaultTracingTimeout is the export timeout when none is set.
const DefaultTracingTimeout = 10 * time.Second

// CheckTracing validates t: an http or https URL with a host, a timeout
// not negative. field names the field at fault under tracing ("" if none).
func CheckTracing(t *Tracing) (field, msg string) {
	if t.OTLPEndpoint == "" {
		return "", ""
	}
	u, err := url.Parse(t.OTLPEndpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "otlp_endpoint", fmt.Sprintf("%q is not an http(s) URL with a host (e.g. http://otel-collector:4318/v1/traces)", RedactURL(t.OTLPEndpoint))
	}
	if t.Timeout < 0 {
		return "timeout", "must not be negative"
	}
	return "", ""
}

// MarshalYAML shows the endpoint with its credentials hidden (/config,
// debug logs): a vendor's key is often its user or a query parameter.
// Headers are secrets already.
func (t Tracing) MarshalYAML() (any, error) {
	type plain Tracing
	t.OTLPEndpoint = RedactURL(t.OTLPEndpoint)
	return plain(t), nil
}

// RedactURL hides the user info and every query value of a URL, for
// messages and pages; a string that does not parse is hidden whole.
func RedactURL(s string) string {
	if s == "" {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "<unparsable URL>"
	}
	if u.User != nil {
		u.User = url.User(redacted)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{redacted}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// redacted stands for a hidden value, as prometheus/common's <secret>.
const redacted = "xxxxx"
