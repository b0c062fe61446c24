package tracing

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/common/version"
	"go.opentelemetry.io/otel"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/otlphttp"
	"github.com/llm-prober/llm-prober/prober"
)

// Spans holds the OTLP span exporter of the running config; a reload
// that changes the tracing section replaces it (the old one flushes). Its
// zero value exports nothing until Apply is given an endpoint.
type Spans struct {
	mu  sync.Mutex // serialises Apply and Stop
	cfg config.Tracing
	cur atomic.Pointer[Exporter]
	log *otlphttp.FailureLog // export outcomes, for every exporter in turn
}

// Apply starts, replaces or stops the exporter for the running config's
// tracing section; export failures are logged to logger on state changes.
func (s *Spans) Apply(c config.Tracing, logger log.Logger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if reflect.DeepEqual(c, s.cfg) {
		return
	}
	if s.log == nil {
		s.log = newExportLog(logger)
		// Anything else the SDK reports goes the same way, not to Go's log.
		otel.SetErrorHandler(otel.ErrorHandlerFunc(s.log.Report))
	}
	x, err := New(c, version.Version, s.log.Report)
	if err != nil {
		level.Error(logger).Log("msg", "tracing: cannot start the OTLP exporter; probes are not exported", "err", err)
		x = nil
	}
	s.cfg = c
	if old := s.cur.Swap(x); old != nil {
		go func() { _ = old.Shutdown(context.Background()) }()
	}
	if x != nil {
		level.Info(logger).Log("msg", "tracing: exporting probe spans", "endpoint", config.RedactURL(c.OTLPEndpoint))
	}
}

// Export sends r's span if tracing is on; it never blocks on the network.
func (s *Spans) Export(r *prober.Result) { s.cur.Load().Export(r) }

// Stop flushes and stops the exporter, within ctx.
func (s *Spans) Stop(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.cur.Swap(nil).Shutdown(ctx)
}
