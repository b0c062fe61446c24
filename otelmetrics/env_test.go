package otelmetrics

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/config"
)

// A config without an otlp_metrics endpoint pushes where
// OTEL_EXPORTER_OTLP_ENDPOINT says, on its /v1/metrics, with the
// environment's headers (percent-decoded; the file's win by name) and
// resource; the service name from OTEL_SERVICE_NAME.
func TestPushFromEnvironment(t *testing.T) {
	rc := newReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20tok-36,X-Scope-OrgID=team-a")
	t.Setenv("OTEL_SERVICE_NAME", "probe-eu")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod")
	// The file's header wins over the environment's of the same name.
	cfg, err := config.Load([]byte(minimalConfig+`
otlp_metrics:
  http_client_config:
    http_headers:
      x-scope-orgid: {values: [file-team]}
`), "env.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.OTLPMetrics.Enabled() {
		t.Fatalf("otlp_metrics not enabled by the environment: %+v", cfg.OTLPMetrics)
	}
	m, err := New(cfg.OTLPMetrics, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	m.Record(&Request{Operation: OperationChat, Provider: "vllm", Model: "m"})
	_ = m.Shutdown(context.Background())
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.pushes == 0 || rc.headers.Get("Authorization") != "Bearer tok-36" || !slices.Equal(rc.headers.Values("X-Scope-OrgID"), []string{"file-team"}) {
		t.Fatalf("%d pushes, headers %v", rc.pushes, rc.headers)
	}
	res := map[string]string{}
	for _, a := range rc.last[0].GetResource().GetAttributes() {
		res[a.GetKey()] = a.GetValue().GetStringValue()
	}
	if res["service.name"] != "probe-eu" || res["deployment.environment"] != "prod" {
		t.Errorf("resource %v", res)
	}
	// /config never shows the headers.
	if shown := cfg.String(); strings.Contains(shown, "tok-36") || strings.Contains(shown, "team-a") {
		t.Errorf("the config shows an environment header:\n%s", cfg.String())
	}
}

// A wrong environment is a config error naming the variable.
func TestEnvironmentErrorIsConfigError(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	_, err := config.Load([]byte(minimalConfig), "env.yml")
	if err == nil || !strings.Contains(err.Error(), `env.yml:1: otlp_metrics: OTEL_EXPORTER_OTLP_PROTOCOL="grpc": llm-prober exports OTLP over http/protobuf only`) {
		t.Errorf("%v", err)
	}
}

const minimalConfig = `
modules:
  chat: {api: chat, messages: [{role: user, content: hi}], max_tokens: 4}
targets:
  - {name: t, url: "http://127.0.0.1:1", model: m, modules: [chat]}
`
