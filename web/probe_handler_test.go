package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/prober"
)

func TestProbeTimeoutFromScrape(t *testing.T) {
	h := http.Header{}
	if got := probeTimeout(5*time.Second, h); got != 5*time.Second {
		t.Errorf("no header: %s", got)
	}
	h.Set("X-Prometheus-Scrape-Timeout-Seconds", "2")
	if got := probeTimeout(5*time.Second, h); got != 1500*time.Millisecond {
		t.Errorf("scrape 2s: %s, want 1.5s", got)
	}
	if got := probeTimeout(time.Second, h); got != time.Second {
		t.Errorf("target shorter than scrape: %s", got)
	}
	for _, v := range []string{"junk", "NaN", "Inf", "+Inf", "-Inf", "1e300", "-1", "0", "9223372037"} {
		h.Set("X-Prometheus-Scrape-Timeout-Seconds", v)
		if got := probeTimeout(5*time.Second, h); got != 5*time.Second {
			t.Errorf("header %q: %s, want the target's 5s", v, got)
		}
	}
}

// A /probe whose caller leaves is not a target failure: it must not push
// real failures out of the history.
func TestProbeAbandonedByCallerNotRecorded(t *testing.T) {
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(stalled.Close)
	ui := New(Options{Config: loadConfig(t, "1m", "30s", "a", stalled.URL).Get, ProbeMaxConcurrent: 1, History: prober.NewHistory(10, 10)})
	srv := httptest.NewServer(http.HandlerFunc(ui.Probe))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/probe?target=a", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the probe answered before the caller left")
	}
	// The handler returns once it notices; then its slot is free.
	for deadline := time.Now().Add(10 * time.Second); len(ui.probeSlots) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the handler did not return after its caller left")
		}
	}
	if got := ui.o.History.Recent(); len(got) != 0 {
		t.Errorf("an abandoned probe was recorded: %+v", got[0].Result)
	}
}
