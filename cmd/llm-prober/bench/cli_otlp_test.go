package bench

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

// otlpTotals is a loopback OTLP/HTTP metrics endpoint keeping, from the
// last push, each histogram's count and sum and the attributes seen.
type otlpTotals struct {
	mu    sync.Mutex
	count map[string]uint64
	sum   map[string]float64
	attrs map[string]string
}

func (o *otlpTotals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	count, sum, attrs := map[string]uint64{}, map[string]float64{}, map[string]string{}
	for len(body) > 0 {
		_, _, n := protowire.ConsumeTag(body)
		b, m := protowire.ConsumeBytes(body[n:])
		body = body[n+m:]
		var rm metricspb.ResourceMetrics
		if n < 0 || m < 0 || proto.Unmarshal(b, &rm) != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, mt := range sm.GetMetrics() {
				for _, p := range mt.GetHistogram().GetDataPoints() {
					name := mt.GetName()
					for _, kv := range p.GetAttributes() {
						attrs[kv.GetKey()] = kv.GetValue().GetStringValue()
						if kv.GetKey() == "gen_ai.token.type" {
							name += "/" + kv.GetValue().GetStringValue()
						}
					}
					count[name] += p.GetCount()
					sum[name] += p.GetSum()
				}
			}
		}
	}
	o.mu.Lock()
	o.count, o.sum, o.attrs = count, sum, attrs
	o.mu.Unlock()
}

// --otlp-metrics.endpoint: every measured request (warm-up left out, as
// from every bench figure) is pushed by the end of the run, its sums
// those of the --output-json; a bad endpoint is bad input (exit 2).
func TestBenchCLIOTLPMetrics(t *testing.T) {
	url := mocktarget.URL(t)
	rc := &otlpTotals{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "200", "--num-prompts", "20", "--warmup", "3",
		"--input-tokens", "8", "--output-tokens", "4", "--progress", "off", "--no-server-metrics",
		"--output-json", jsonPath, "--otlp-metrics.endpoint", srv.URL+"/v1/metrics")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, log)
	}
	var res struct {
		Requests []struct {
			Warmup       bool
			Latency      float64
			OutputTokens int `json:"output_tokens"`
			Success      bool
		}
	}
	raw, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	var e2el float64
	var tokens, n int
	for _, r := range res.Requests {
		if !r.Warmup && r.Success {
			e2el += r.Latency
			tokens += r.OutputTokens
			n++
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if c := rc.count["gen_ai.client.operation.duration"]; c != 20 || n != 20 || math.Abs(rc.sum["gen_ai.client.operation.duration"]-e2el) > 1e-6 {
		t.Errorf("duration: count %d sum %v; the JSON: %d requests, latency sum %v", c, rc.sum["gen_ai.client.operation.duration"], n, e2el)
	}
	if s := rc.sum["gen_ai.client.token.usage/output"]; int(s) != tokens {
		t.Errorf("output tokens %v, the JSON's %d", s, tokens)
	}
	if rc.count["gen_ai.client.operation.time_to_first_chunk"] != 20 || rc.attrs["gen_ai.operation.name"] != "chat" ||
		rc.attrs["server.address"] != "127.0.0.1" || rc.attrs["gen_ai.request.model"] == "" {
		t.Errorf("TTFC count %d, attributes %v", rc.count["gen_ai.client.operation.time_to_first_chunk"], rc.attrs)
	}

	code, _, log = benchCLI(t, "--url", url, "--num-prompts", "1", "--progress", "off", "--otlp-metrics.endpoint", "ftp://u:secret-36@x/")
	if code != ExitBadInput || !strings.Contains(log, "--otlp-metrics.endpoint") || strings.Contains(log, "secret-36") {
		t.Errorf("bad endpoint: exit %d, log %q", code, log)
	}
}
