package otlpcfg

import (
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// The checks name the field at fault and never show a credential.
func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		tr    Tracing
		field string
	}{
		{Tracing{}, ""},
		{Tracing{OTLPEndpoint: "http://c:4318/v1/traces"}, ""},
		{Tracing{OTLPEndpoint: "c:4318"}, "otlp_endpoint"},
		{Tracing{OTLPEndpoint: "http://c:4318", Timeout: -1}, "timeout"},
	} {
		if f, _ := CheckTracing(&tc.tr); f != tc.field {
			t.Errorf("%+v: field %q, want %q", tc.tr, f, tc.field)
		}
	}
	f, msg := CheckTracing(&Tracing{OTLPEndpoint: "ftp://user:pw@c/?key=k1"})
	if f != "otlp_endpoint" || msg != `"ftp://xxxxx@c/?key=xxxxx" is not an http(s) URL with a host (e.g. http://otel-collector:4318/v1/traces)` {
		t.Errorf("%s: %s", f, msg)
	}
	for _, tc := range []struct {
		m     OTLPMetrics
		field string
	}{
		{OTLPMetrics{}, ""},
		{OTLPMetrics{Endpoint: "http://p:9090/api/v1/otlp/v1/metrics"}, ""},
		{OTLPMetrics{Endpoint: "p:9090"}, "endpoint"},
		{OTLPMetrics{Endpoint: "http://p", Interval: model.Duration(time.Millisecond)}, "interval"},
		{OTLPMetrics{Endpoint: "http://p", Timeout: -1}, "timeout"},
	} {
		if f, _ := CheckOTLPMetrics(&tc.m); f != tc.field {
			t.Errorf("%+v: field %q, want %q", tc.m, f, tc.field)
		}
	}
	m := OTLPMetrics{Interval: model.Duration(5 * time.Second)}
	if m.PushInterval() != 5*time.Second || m.PushTimeout() != 5*time.Second || !m.Translate() {
		t.Errorf("defaults: %s %s %v", m.PushInterval(), m.PushTimeout(), m.Translate())
	}
}
