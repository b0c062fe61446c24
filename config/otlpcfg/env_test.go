package otlpcfg

import (
	"strings"
	"testing"
	"time"

	promcfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The OTEL_EXPORTER_OTLP_* variables fill what a section leaves unset, as
// the specification reads them: the generic endpoint gets the signal's
// path, the signal's own is used as is and wins, headers are
// percent-decoded, the timeout is in milliseconds; the section wins.
func TestApplyEnv(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":         "http://collector:4318",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://prom:9090/api/v1/otlp/v1/metrics",
		"OTEL_EXPORTER_OTLP_HEADERS":          " api-key = s%3Dcr%2Cet ,X-Tenant=t1",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS":  "X-Scope-OrgID=m",
		"OTEL_EXPORTER_OTLP_TIMEOUT":          "2500",
		"OTEL_EXPORTER_OTLP_PROTOCOL":         "http/protobuf",
		"OTEL_EXPORTER_OTLP_COMPRESSION":      "none",
		"OTEL_SERVICE_NAME":                   "probe-eu",
		"OTEL_RESOURCE_ATTRIBUTES":            "deployment.environment=prod,service.name=ignored,team=a%20b",
	}
	var tr Tracing
	if err := tr.ApplyEnv(envOf(env)); err != nil {
		t.Fatal(err)
	}
	if tr.OTLPEndpoint != "http://collector:4318/v1/traces" || time.Duration(tr.Timeout) != 2500*time.Millisecond ||
		tr.ServiceName != "probe-eu" || !tr.Env.Endpoint ||
		tr.Env.Headers["api-key"] != "s=cr,et" || tr.Env.Headers["X-Tenant"] != "t1" || len(tr.Env.Headers) != 2 {
		t.Errorf("tracing: %+v", tr)
	}
	if got := tr.Env.Resource; len(got) != 2 || got[0] != (Attribute{"deployment.environment", "prod"}) || got[1] != (Attribute{"team", "a b"}) {
		t.Errorf("resource %v", got)
	}
	var m OTLPMetrics
	if err := m.ApplyEnv(envOf(env)); err != nil {
		t.Fatal(err)
	}
	if m.Endpoint != "http://prom:9090/api/v1/otlp/v1/metrics" || m.Env.Headers["X-Scope-OrgID"] != "m" || len(m.Env.Headers) != 1 {
		t.Errorf("metrics: %+v", m)
	}

	// The section wins; its endpoint takes none of the environment's
	// exporter settings (a secret header goes only where the environment
	// sends it), its service name stays.
	m = OTLPMetrics{Endpoint: "http://mine:4318/v1/metrics", ServiceName: "mine", Timeout: model.Duration(time.Second)}
	if err := m.ApplyEnv(envOf(env)); err != nil {
		t.Fatal(err)
	}
	if m.Endpoint != "http://mine:4318/v1/metrics" || m.ServiceName != "mine" || m.Env.Endpoint || m.Env.Headers != nil ||
		time.Duration(m.Timeout) != time.Second || len(m.Env.Resource) != 2 {
		t.Errorf("section first: %+v", m)
	}
	// A trailing slash is not doubled; OTEL_RESOURCE_ATTRIBUTES's
	// service.name is the last resort.
	tr = Tracing{Timeout: model.Duration(time.Second)}
	if err := tr.ApplyEnv(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c/otlp/", "OTEL_RESOURCE_ATTRIBUTES": "service.name=from-attrs"})); err != nil {
		t.Fatal(err)
	}
	if tr.OTLPEndpoint != "https://c/otlp/v1/traces" || tr.ServiceName != "from-attrs" || time.Duration(tr.Timeout) != time.Second {
		t.Errorf("%+v", tr)
	}
	// Nothing set: nothing changes.
	tr = Tracing{}
	if err := tr.ApplyEnv(envOf(nil)); err != nil || tr.OTLPEndpoint != "" || tr.Env.Endpoint {
		t.Errorf("%+v %v", tr, err)
	}
}

// Hostile or wrong values are one-line errors naming the variable that
// never show a header's value; every value is capped before parsing.
func TestApplyEnvRefuses(t *testing.T) {
	const secret = "s3cr3t-36"
	base := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}
	for _, tc := range []struct {
		k, v, want string
	}{
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", `OTEL_EXPORTER_OTLP_PROTOCOL="grpc": llm-prober exports OTLP over http/protobuf only`},
		{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json", `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="http/json"`},
		{"OTEL_EXPORTER_OTLP_COMPRESSION", "gzip", "sends uncompressed bodies only"},
		{"OTEL_EXPORTER_OTLP_TIMEOUT", "10s", `OTEL_EXPORTER_OTLP_TIMEOUT="10s": want whole milliseconds from 1 to 3600000`},
		{"OTEL_EXPORTER_OTLP_TIMEOUT", "0", "want whole milliseconds"},
		{"OTEL_EXPORTER_OTLP_TIMEOUT", "99999999999999999999", "want whole milliseconds"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318", "OTEL_EXPORTER_OTLP_ENDPOINT=\"collector:4318/v1/traces\": not an http(s) URL"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "ftp://u:" + secret + "@c/", `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="ftp://xxxxx@c/": not`},
		{"OTEL_EXPORTER_OTLP_HEADERS", "Authorization Bearer " + secret, "OTEL_EXPORTER_OTLP_HEADERS: entry 1 is not key=value"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "a=1,Bad Key " + secret + "=x", "entry 2: the key is not an HTTP header name"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "api-key=" + secret + "%0d%0aX-Evil: 1", "entry 1 (api-key): the value holds a control character"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "api-key=" + secret + "%zz", "entry 1 (api-key): bad percent-encoding"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "Content-Type=text/plain", "entry 1: Content-Type is set by the exporter itself"},
		{"OTEL_EXPORTER_OTLP_HEADERS", strings.Repeat("a=b,", MaxEnvPairs+1), "more than 64 entries"},
		{"OTEL_EXPORTER_OTLP_HEADERS", "k=" + secret + strings.Repeat("x", MaxEnvValue), "OTEL_EXPORTER_OTLP_HEADERS: longer than 8192 bytes"},
		{"OTEL_RESOURCE_ATTRIBUTES", "a", "OTEL_RESOURCE_ATTRIBUTES: entry 1 is not key=value"},
		{"OTEL_SERVICE_NAME", strings.Repeat("n", MaxEnvValue+1), "OTEL_SERVICE_NAME: longer than 8192 bytes"},
	} {
		env := map[string]string{}
		for k, v := range base {
			env[k] = v
		}
		env[tc.k] = tc.v
		var tr Tracing
		err := tr.ApplyEnv(envOf(env))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%.40q: %v, want %q", tc.k, tc.v, err, tc.want)
		}
	}
	// What is not used is not read: a bad protocol beside the section's
	// own endpoint is not an error.
	tr := Tracing{OTLPEndpoint: "http://mine/v1/traces"}
	if err := tr.ApplyEnv(envOf(map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})); err != nil {
		t.Error(err)
	}
}

// The headers never reach YAML (/config, debug output).
func TestEnvHeadersNotShown(t *testing.T) {
	m := OTLPMetrics{Endpoint: "http://c/v1/metrics", Env: FromEnv{Endpoint: true, Headers: map[string]promcfg.Secret{"api-key": "s3cr3t"}}}
	tr := Tracing{OTLPEndpoint: "http://c/v1/traces", Env: m.Env}
	for _, v := range []any{m, tr} {
		out, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(out); strings.Contains(s, "s3cr3t") || strings.Contains(s, "api-key") {
			t.Errorf("shown: %s", s)
		}
	}
}
