package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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

// A server whose stream carries terminal escapes (its model name and
// finish reason) and one whose error body does: /probe?debug shows them
// as visible "\x1b", never raw, to whoever curls it in a terminal
// (issue 32, text).
func TestProbeDebugEscapesServerText(t *testing.T) {
	for _, h := range []http.HandlerFunc{
		func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			for _, c := range []string{
				`{"model":"m\u001b]0;pwned\u0007","choices":[{"index":0,"delta":{"content":"hi"}}]}`,
				`{"model":"m\u001b]0;pwned\u0007","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"stop\u001b[2J"}]}`,
				`{"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
			} {
				_, _ = io.WriteString(w, "data: "+c+"\n\n")
			}
			_, _ = io.WriteString(w, "data: [DONE]\n\n")
		},
		func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			http.Error(w, `{"error":{"message":"overloaded`+"\x1b[2J\x1b[31m"+`"}}`, http.StatusServiceUnavailable)
		},
	} {
		testProbeDebugEscapes(t, h)
	}
}

func testProbeDebugEscapes(t *testing.T, h http.HandlerFunc) {
	hostile := httptest.NewServer(h)
	t.Cleanup(hostile.Close)
	ui := New(Options{Config: loadConfig(t, "1m", "5s", "a", hostile.URL).Get, ProbeMaxConcurrent: 1, History: prober.NewHistory(10, 10)})
	mux := http.NewServeMux()
	mux.HandleFunc("/probe", ui.Probe)
	mux.HandleFunc("/logs", ui.Logs)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	get := func(path string) string {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if i := strings.IndexAny(string(body), "\x1b\x07"); i >= 0 {
			t.Errorf("raw control character in %s: %q", path, body[max(0, i-80):min(len(body), i+40)])
		}
		return string(body)
	}
	body := get("/probe?target=a&debug=true")
	if !strings.Contains(body, "Logs for the probe:") || !strings.Contains(body, `\x1b[2J`) {
		t.Errorf("not the debug page with the escape shown:\n%s", body)
	}
	recent := ui.o.History.Recent()
	if len(recent) == 0 {
		t.Fatal("no probe in the history")
	}
	get("/logs?id=" + recent[0].Result.ID)
}
