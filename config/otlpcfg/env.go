package otlpcfg

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	promcfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
)

// FromEnv is what the OpenTelemetry environment variables gave a section
// that left it unset. Never in YAML: the headers are secrets, kept out of
// /config and debug output.
type FromEnv struct {
	// Endpoint reports that the section's endpoint came from the
	// environment; only then are Headers sent (a secret meant for the
	// environment's collector never goes to another endpoint).
	Endpoint bool
	// Headers are OTEL_EXPORTER_OTLP_{TRACES,METRICS,}_HEADERS.
	Headers map[string]promcfg.Secret
	// Resource is OTEL_RESOURCE_ATTRIBUTES, in order (service.name left
	// out: it goes to the section's service name).
	Resource []Attribute
}

// Attribute is one resource attribute.
type Attribute struct{ Key, Value string }

// Caps on the environment: a value is read whole, so each is bounded
// before it is parsed.
const (
	MaxEnvValue      = 8 << 10
	MaxEnvPairs      = 64
	MaxEnvTimeoutMS  = 3_600_000
	envProtocol      = "http/protobuf"
	envPrefix        = "OTEL_EXPORTER_OTLP_"
	envServiceName   = "OTEL_SERVICE_NAME"
	envResourceAttrs = "OTEL_RESOURCE_ATTRIBUTES"
)

// EnvNames are the variables read, a signal's own (TRACES, METRICS)
// before the generic one.
var EnvNames = []string{
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
	"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
	"OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION",
	envServiceName, envResourceAttrs,
}

// ApplyEnv fills what the tracing section leaves unset from the
// environment (getenv is os.Getenv; tests pass their own). The section
// wins, as the OpenTelemetry specification orders them. An error names
// the variable and never shows a header's value.
func (t *Tracing) ApplyEnv(getenv func(string) string) error {
	return applyEnv(getenv, "TRACES", "v1/traces", &t.OTLPEndpoint, &t.Timeout, &t.ServiceName, &t.Env)
}

// ApplyEnv fills what the otlp_metrics section leaves unset, as
// Tracing.ApplyEnv does.
func (m *OTLPMetrics) ApplyEnv(getenv func(string) string) error {
	return applyEnv(getenv, "METRICS", "v1/metrics", &m.Endpoint, &m.Timeout, &m.ServiceName, &m.Env)
}

// envReader reads variables through their caps.
type envReader struct {
	getenv func(string) string
	signal string // TRACES or METRICS
}

// get is name's value, or an error past the cap. The value is never in
// the error (a header's may be a secret).
func (r envReader) get(name string) (string, error) {
	v := r.getenv(name)
	if len(v) > MaxEnvValue {
		return "", fmt.Errorf("%s: longer than %d bytes", name, MaxEnvValue)
	}
	return strings.TrimSpace(v), nil
}

// option is the signal's own variable if set, else the generic one; name
// is the one read.
func (r envReader) option(suffix string) (value, name string, err error) {
	name = envPrefix + r.signal + "_" + suffix
	if value, err = r.get(name); err != nil || value != "" {
		return value, name, err
	}
	name = envPrefix + suffix
	value, err = r.get(name)
	return value, name, err
}

func applyEnv(getenv func(string) string, signal, path string, endpoint *string, timeout *model.Duration, service *string, env *FromEnv) error {
	*env = FromEnv{}
	r := envReader{getenv: getenv, signal: signal}
	if err := r.resource(service, env); err != nil {
		return err
	}
	if *endpoint != "" {
		return nil // the section's endpoint takes the section's settings only
	}
	ep, _, err := r.endpoint(path)
	if err != nil || ep == "" {
		return err
	}
	if v, name, err := r.option("PROTOCOL"); err != nil {
		return err
	} else if v != "" && v != envProtocol {
		return fmt.Errorf("%s=%q: llm-prober exports OTLP over %s only (unset it, or set %s)", name, trunc(v), envProtocol, envProtocol)
	}
	if v, name, err := r.option("COMPRESSION"); err != nil {
		return err
	} else if v != "" && v != "none" {
		return fmt.Errorf("%s=%q: llm-prober's exporter sends uncompressed bodies only (unset it, or set none)", name, trunc(v))
	}
	if *timeout == 0 {
		v, name, err := r.option("TIMEOUT")
		if err != nil {
			return err
		}
		if v != "" {
			ms, err := strconv.Atoi(v)
			if err != nil || ms < 1 || ms > MaxEnvTimeoutMS {
				return fmt.Errorf("%s=%q: want whole milliseconds from 1 to %d", name, trunc(v), MaxEnvTimeoutMS)
			}
			*timeout = model.Duration(time.Duration(ms) * time.Millisecond)
		}
	}
	v, name, err := r.option("HEADERS")
	if err != nil {
		return err
	}
	h, err := parseHeaders(name, v)
	if err != nil {
		return err
	}
	*endpoint, env.Endpoint, env.Headers = ep, true, h
	return nil
}

// endpoint is the signal's endpoint as is, else the generic one with the
// signal's path appended (the specification's rule); name is the
// variable it came from.
func (r envReader) endpoint(path string) (string, string, error) {
	name := envPrefix + r.signal + "_ENDPOINT"
	v, err := r.get(name)
	if err != nil {
		return "", name, err
	}
	if v == "" {
		name = envPrefix + "ENDPOINT"
		if v, err = r.get(name); err != nil || v == "" {
			return "", name, err
		}
		if !strings.HasSuffix(v, "/") {
			v += "/"
		}
		v += path
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", name, fmt.Errorf("%s=%q: not an http(s) URL with a host (e.g. http://otel-collector:4318)", name, RedactURL(v))
	}
	return v, name, nil
}

// resource reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: the
// section's service_name wins, then OTEL_SERVICE_NAME, then the
// attributes' service.name.
func (r envReader) resource(service *string, env *FromEnv) error {
	attrs, err := r.get(envResourceAttrs)
	if err != nil {
		return err
	}
	pairs, err := parsePairs(envResourceAttrs, attrs)
	if err != nil {
		return err
	}
	fromAttrs := ""
	for _, p := range pairs {
		if p.Key == "service.name" {
			fromAttrs = p.Value
			continue
		}
		env.Resource = append(env.Resource, p)
	}
	name, err := r.get(envServiceName)
	if err != nil {
		return err
	}
	if *service == "" {
		*service = name
	}
	if *service == "" {
		*service = fromAttrs
	}
	return nil
}

// parseHeaders reads `key=value,...` (values percent-decoded) as HTTP
// headers. Errors name the entry, never its value.
func parseHeaders(name, v string) (map[string]promcfg.Secret, error) {
	pairs, err := parsePairs(name, v)
	if err != nil || len(pairs) == 0 {
		return nil, err
	}
	h := make(map[string]promcfg.Secret, len(pairs))
	for i, p := range pairs {
		switch {
		case !headerName(p.Key):
			return nil, fmt.Errorf("%s: entry %d: the key is not an HTTP header name", name, i+1)
		case strings.ContainsFunc(p.Value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }):
			return nil, fmt.Errorf("%s: entry %d (%s): the value holds a control character", name, i+1, p.Key)
		case reservedHeader(p.Key):
			return nil, fmt.Errorf("%s: entry %d: %s is set by the exporter itself", name, i+1, p.Key)
		}
		h[p.Key] = promcfg.Secret(p.Value)
	}
	return h, nil
}

// headerName reports an RFC 9110 token.
func headerName(k string) bool {
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return k != ""
}

func reservedHeader(k string) bool {
	switch strings.ToLower(k) {
	case "content-type", "content-length", "content-encoding", "transfer-encoding", "host", "connection":
		return true
	}
	return false
}

// parsePairs reads the W3C-baggage-like list the specification uses for
// headers and resource attributes: `key=value` entries split by commas,
// spaces trimmed, values percent-decoded. An empty entry is skipped.
// Errors name the entry by number, never its value.
func parsePairs(name, v string) ([]Attribute, error) {
	if v == "" {
		return nil, nil
	}
	var out []Attribute
	for i, entry := range strings.Split(v, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if len(out) == MaxEnvPairs {
			return nil, fmt.Errorf("%s: more than %d entries", name, MaxEnvPairs)
		}
		k, val, ok := strings.Cut(entry, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: entry %d is not key=value", name, i+1)
		}
		dec, err := url.PathUnescape(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("%s: entry %d (%s): bad percent-encoding in the value", name, i+1, trunc(k))
		}
		out = append(out, Attribute{Key: k, Value: dec})
	}
	return out, nil
}

// trunc shortens a shown value (not a secret's) for a one-line message.
func trunc(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
