package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
)

// A reload that sets, keeps or clears tracing.otlp_endpoint starts, keeps
// or stops the exporter; stop flushes what is batched.
func TestSpanExportFollowsReloads(t *testing.T) {
	var posts atomic.Int32
	otlp := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { posts.Add(1) }))
	defer otlp.Close()

	var s Spans
	s.Export(&prober.Result{}) // no tracing section: a no-op
	c := config.Tracing{OTLPEndpoint: otlp.URL + "/v1/traces"}
	s.Apply(c, log.NewNopLogger())
	first := s.cur.Load()
	if first == nil {
		t.Fatal("no exporter with an endpoint set")
	}
	s.Apply(c, log.NewNopLogger())
	if s.cur.Load() != first {
		t.Error("an unchanged tracing section replaced the exporter")
	}
	id := prober.NewProbeID()
	s.Export(&prober.Result{ID: id, Trace: prober.NewTraceContext(id), Target: "t", Module: "chat", Start: time.Now()})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.Stop(ctx)
	if posts.Load() != 1 {
		t.Errorf("%d exports after stop, want 1", posts.Load())
	}
	s.Apply(config.Tracing{}, log.NewNopLogger())
	if s.cur.Load() != nil {
		t.Error("clearing the endpoint kept an exporter")
	}
}
