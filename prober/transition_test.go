package prober

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// At the default level (info), an outage shows as one warning with its
// reason and message when it starts and one info line when it ends,
// however many probes fail in between.
func TestSchedulerLogsFailingAndRecovered(t *testing.T) {
	var failing atomic.Bool
	var failures atomic.Int64
	failing.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			failures.Add(1)
			http.Error(w, "model not loaded", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, contentEvent("a")+contentEvent("b")+finishEvent+doneEvent)
	}))
	t.Cleanup(srv.Close)
	buf := &testutil.LockedBuffer{}
	logger := level.NewFilter(log.NewLogfmtLogger(buf), level.AllowInfo())
	s := NewScheduler(logger, NewMetrics(prometheus.NewRegistry()), "test", nil)
	t.Cleanup(func() { s.Stop(5 * time.Second) })
	cfg := schedConfig(srv.URL, 1, 20*time.Millisecond, 5*time.Second, 1)
	cfg.Targets[0].URL = srv.URL
	s.Apply(cfg)

	waitUntil(t, func() bool { return failures.Load() >= 3 })
	failing.Store(false)
	waitUntil(t, func() bool { return strings.Contains(buf.String(), `msg="probe recovered"`) })

	out := buf.String()
	if n := strings.Count(out, `msg="probe started failing"`); n != 1 {
		t.Fatalf("%d 'started failing' lines for one outage, want 1:\n%s", n, out)
	}
	for _, want := range []string{"level=warn", "target=t0", "module=chat", "reason=http_4xx", "model not loaded", "level=info"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `msg="probe failed"`) {
		t.Errorf("per-probe failures logged at info:\n%s", out)
	}
}

// waitUntil polls cond for up to a minute: generous, as the machine may
// be loaded; it asserts what happened, not how fast.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within a minute")
		}
	}
}
