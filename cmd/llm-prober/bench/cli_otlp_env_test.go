package bench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

// withHeaders records the headers of the pushes it passes on.
type withHeaders struct {
	next    http.Handler
	mu      sync.Mutex
	path    string
	headers http.Header
}

func (h *withHeaders) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.path, h.headers = r.URL.Path, r.Header.Clone()
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

// Without --otlp-metrics.endpoint or a config file, bench pushes where
// OTEL_EXPORTER_OTLP_ENDPOINT says (its /v1/metrics) with the
// environment's headers, and the provider is the backend the target's
// /metrics show (bench's target is auto), not unknown. A wrong
// environment is bad input naming the variable; the flag's endpoint
// takes none of the environment's headers.
func TestBenchCLIOTLPFromEnvironment(t *testing.T) {
	url := mocktarget.URL(t)
	rc := &otlpTotals{}
	h := &withHeaders{next: rc}
	srv := httptest.NewServer(h)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_HEADERS", "X-Api-Key=env-key-36")
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "100", "--num-prompts", "4",
		"--input-tokens", "8", "--output-tokens", "4", "--progress", "off")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, log)
	}
	h.mu.Lock()
	path, key := h.path, h.headers.Get("X-Api-Key")
	h.mu.Unlock()
	rc.mu.Lock()
	n, provider := rc.count["gen_ai.client.operation.duration"], rc.attrs["gen_ai.provider.name"]
	rc.mu.Unlock()
	if path != "/v1/metrics" || key != "env-key-36" || n != 4 || provider != "vllm" {
		t.Errorf("push to %q with key %q: %d requests, provider %q; want /v1/metrics, the key, 4, vllm", path, key, n, provider)
	}
	if strings.Contains(stdout+log, "env-key-36") {
		t.Errorf("the header shows:\n%s%s", stdout, log)
	}

	code, _, log = benchCLI(t, "--url", url, "--num-prompts", "1", "--progress", "off", "--otlp-metrics.endpoint", srv.URL+"/v1/metrics")
	h.mu.Lock()
	key = h.headers.Get("X-Api-Key")
	h.mu.Unlock()
	if code != 0 || key != "" {
		t.Errorf("flag's endpoint: exit %d, key %q sent (log %s)", code, key, log)
	}

	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	code, _, log = benchCLI(t, "--url", url, "--num-prompts", "1", "--progress", "off")
	if code != ExitBadInput || !strings.Contains(log, `OTEL_EXPORTER_OTLP_PROTOCOL="grpc": llm-prober exports OTLP over http/protobuf only`) {
		t.Errorf("grpc: exit %d, log %q", code, log)
	}
}
