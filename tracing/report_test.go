package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
)

// Export outcomes go to New's report, failures and successes alike, and
// not to the SDK's error handler (by default a raw Go log line per batch).
func TestExportOutcomesGoToReport(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	otlp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "no collector here", http.StatusServiceUnavailable)
		}
	}))
	defer otlp.Close()
	var sdkErrors atomic.Int32
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) { sdkErrors.Add(1) }))
	var mu sync.Mutex
	var got []error
	x, err := New(config.Tracing{OTLPEndpoint: otlp.URL + "/v1/traces"}, "v0", func(err error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, err)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Shutdown(context.Background())
	send := func() {
		t.Helper()
		id := prober.NewProbeID()
		x.Export(&prober.Result{ID: id, Trace: prober.NewTraceContext(id), Target: "t", Module: "chat", Start: time.Now()})
		if err := x.ForceFlush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	send()
	down.Store(false)
	send()

	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] == nil || !strings.Contains(got[0].Error(), "HTTP 503") || got[1] != nil {
		t.Fatalf("reported %v, want [HTTP 503 error, nil]", got)
	}
	if n := sdkErrors.Load(); n != 0 {
		t.Errorf("%d errors also went to the SDK's handler", n)
	}
}
