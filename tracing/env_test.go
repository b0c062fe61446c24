package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	promcfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/config"
)

// Spans go where OTEL_EXPORTER_OTLP_TRACES_ENDPOINT says (as is), with
// the environment's headers under the section's (which win by name) and
// the service name from OTEL_RESOURCE_ATTRIBUTES.
func TestExportFromEnvironment(t *testing.T) {
	rc := &receiver{}
	otlp := httptest.NewServer(rc)
	defer otlp.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1") // the signal's own wins
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", otlp.URL+"/v1/traces")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-api-key=env-key,x-scope-orgid=env-team")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "5000")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-env")
	c := config.Tracing{Headers: map[string]promcfg.Secret{"X-Scope-OrgID": "file-team"}}
	if err := c.ApplyEnv(os.Getenv); err != nil {
		t.Fatal(err)
	}
	x, err := New(c, "v0", nil)
	if err != nil || x == nil {
		t.Fatalf("%v %v", x, err)
	}
	defer x.Shutdown(context.Background())
	x.Export(probe(t, llmServer(t, http.StatusOK, new(string)).URL))
	if err := x.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.spans) != 1 || rc.service != "from-env" || rc.headers.Get("X-Api-Key") != "env-key" || rc.headers.Get("X-Scope-OrgID") != "file-team" {
		t.Errorf("%d spans, service %q, headers %v", len(rc.spans), rc.service, rc.headers)
	}
}
