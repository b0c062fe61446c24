package tracing

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/otlphttp"
	"github.com/llm-prober/llm-prober/prober"
)

// With no collector, the prober logs the export failing once, through its
// own logger at warn (not a raw Go log line per batch), then a reminder
// at most every otlphttp.Reminder, and the recovery at info.
func TestSpanExportErrorsLoggedOnChange(t *testing.T) {
	var buf bytes.Buffer
	l := newExportLog(log.NewLogfmtLogger(&buf))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.Now = func() time.Time { return now }
	fail := errors.New("dial tcp 127.0.0.1:4318: connect: connection refused")
	for range 100 { // 100 batches, one every 5 s: 8m20s
		l.Report(fail)
		now = now.Add(5 * time.Second)
	}
	if n := strings.Count(buf.String(), "\n"); n != 1 || !strings.Contains(buf.String(), "level=warn") {
		t.Fatalf("%d lines for 100 failed exports in 8m20s, want one warning:\n%s", n, buf.String())
	}
	now = now.Add(2 * time.Minute)
	l.Report(fail)
	if !strings.Contains(buf.String(), `msg="tracing: OTLP span export still failing" failed_exports=100`) {
		t.Errorf("no reminder after %v:\n%s", otlphttp.Reminder, buf.String())
	}
	l.Report(nil)
	l.Report(nil)
	if n := strings.Count(buf.String(), "export recovered"); n != 1 || !strings.Contains(buf.String(), "level=info") {
		t.Errorf("%d recovery lines, want one at info:\n%s", n, buf.String())
	}
}

// End to end through the exporter: a collector that answers 503 to every
// batch gives one line in the prober's log format.
func TestSpanExportToNoCollectorLogsOnce(t *testing.T) {
	otlp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no collector", http.StatusServiceUnavailable)
	}))
	defer otlp.Close()
	var buf bytes.Buffer
	var s Spans
	s.Apply(config.Tracing{OTLPEndpoint: otlp.URL + "/v1/traces"}, log.NewLogfmtLogger(log.NewSyncWriter(&buf)))
	defer s.Stop(context.Background())
	for range 3 {
		id := prober.NewProbeID()
		s.Export(&prober.Result{ID: id, Trace: prober.NewTraceContext(id), Target: "t", Module: "chat", Start: time.Now()})
		if err := s.cur.Load().ForceFlush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "export failing"); n != 1 || !strings.Contains(buf.String(), "HTTP 503") {
		t.Errorf("%d failure lines for 3 failed batches, want 1 with the error:\n%s", n, buf.String())
	}
}
