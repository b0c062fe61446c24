package prober

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober/rxstamp"
)

// faultClient is the production client (prometheus/common, with kernel
// receive times), one per test so its idle connections can be closed
// before counting goroutines.
func faultClient(t *testing.T, hc commoncfg.HTTPClientConfig) *http.Client {
	t.Helper()
	c, err := NewClient(&config.Target{HTTPClientConfig: hc}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// probeFault runs one probe and checks the reason, that it returned
// within its timeout (plus slack for closing), and returns the result.
func probeFault(t *testing.T, c *http.Client, url string, m *config.Module, timeout time.Duration, want Reason) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	r := Run(ctx, c, testTarget(url), m, "fault-1", "test")
	if took := time.Since(start); took > timeout+5*time.Second {
		t.Errorf("probe took %s with a %s timeout", took, timeout)
	}
	if r.Reason != want {
		t.Fatalf("reason %q (err %v), want %q", r.Reason, r.Err, want)
	}
	if want != ReasonNone && r.Err == nil {
		t.Errorf("failed probe without an error")
	}
	return r
}

// checkGoroutines waits for the goroutine count to come back to base: a
// probe must leave nothing behind (readers, dialers, timers).
func checkGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, baseline %d:\n%s", n, base, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leakCheck records the goroutine baseline and checks it at cleanup,
// after the test's servers and clients are closed (cleanups run LIFO, so
// it must be registered first).
// Connections with kernel receive times must leave their registry too.
func leakCheck(t *testing.T) {
	base, conns := runtime.NumGoroutine(), rxstamp.Tracked()
	t.Cleanup(func() {
		if !t.Failed() {
			checkGoroutines(t, base)
			if n := rxstamp.Tracked(); n > conns {
				t.Errorf("%d timestamped connections still registered, %d before the test", n, conns)
			}
		}
	})
}

func errContains(t *testing.T, r *Result, sub string) {
	t.Helper()
	if r.Err == nil || !strings.Contains(r.Err.Error(), sub) {
		t.Errorf("error %v does not contain %q", r.Err, sub)
	}
}
