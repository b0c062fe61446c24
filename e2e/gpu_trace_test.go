package e2e

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// gpuPods are the pod labels the fake DCGM exporter reports, one per mock;
// the prober config gives each target the same label, which the GPU
// panels join on (the gpu_join variable's default, pod).
var gpuPods = map[string]string{"mock-overloaded": "vllm-overloaded-0", "mock-prefill": "vllm-prefill-0"}

// dcgmExporter serves what NVIDIA's dcgm-exporter does for one H100 per
// pod, with its Kubernetes pod mapping turned on.
func dcgmExporter(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintln(w, "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge")
		i := 0
		for _, pod := range gpuPods {
			fmt.Fprintf(w, "DCGM_FI_DEV_GPU_UTIL{gpu=\"%d\",UUID=\"GPU-%d\",device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-a\",container=\"vllm\",namespace=\"llm\",pod=%q} %d\n", i, i, i, pod, 60+10*i)
			i++
		}
		for _, f := range []struct {
			name string
			v    int
		}{{"DCGM_FI_DEV_FB_USED", 72000}, {"DCGM_FI_DEV_FB_FREE", 9000}} {
			fmt.Fprintf(w, "# HELP %s Framebuffer memory (in MiB).\n# TYPE %s gauge\n", f.name, f.name)
			i = 0
			for _, pod := range gpuPods {
				fmt.Fprintf(w, "%s{gpu=\"%d\",UUID=\"GPU-%d\",device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-a\",container=\"vllm\",namespace=\"llm\",pod=%q} %d\n", f.name, i, i, i, pod, f.v)
				i++
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// otlpReceiver is a loopback OTLP/HTTP traces endpoint recording the trace
// ids of the spans llm-prober exports.
type otlpReceiver struct {
	mu     sync.Mutex
	traces map[string]bool
	srv    *httptest.Server
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rc := &otlpReceiver{traces: map[string]bool{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		for len(body) > 0 {
			num, typ, n := protowire.ConsumeTag(body)
			if n < 0 || num != 1 || typ != protowire.BytesType {
				http.Error(w, "not an ExportTraceServiceRequest", http.StatusBadRequest)
				return
			}
			b, m := protowire.ConsumeBytes(body[n:])
			body = body[n+m:]
			var rs tracepb.ResourceSpans
			if err := proto.Unmarshal(b, &rs); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			rc.mu.Lock()
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					rc.traces[hex.EncodeToString(s.GetTraceId())] = true
				}
			}
			rc.mu.Unlock()
		}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *otlpReceiver) has(traceID string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.traces[traceID]
}
