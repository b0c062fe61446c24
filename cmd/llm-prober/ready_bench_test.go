package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// streamEvery5ms answers an event stream that writes chunk every 5 ms
// until the client leaves: bytes, but never a token.
func streamEvery5ms(chunk string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
}

// hostileHandlers are slow and hanging servers, the kind that keep a
// prober's probes and scrapes waiting: they answer the probe (and, with
// server_metrics, the scrape) late or never.
var hostileHandlers = map[string]http.HandlerFunc{
	"hang": func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // lets net/http notice a client that left
		<-r.Context().Done()
	},
	"drip":       streamEvery5ms("d"),
	"keep_alive": streamEvery5ms(": keep-alive\n\n"),
	// 500 to every probe; its /metrics hangs, so every scrape waits out
	// its timeout.
	"slow_metrics": func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			<-r.Context().Done()
			return
		}
		http.Error(w, "engine dead", http.StatusInternalServerError)
	},
}

// BenchmarkReadinessUnderAttack measures /-/ready and /-/healthy of the
// real binary while it probes 40 hostile targets (10 of each kind above,
// 1 s interval and timeout, server_metrics on) and reloads its config
// every 500 ms. Neither handler shares a lock with probes, scrapes,
// discovery or reloads, so what remains is the machine's CPU: the p99 is
// reported as ready-p99-ms and healthy-p99-ms. See docs/performance.md.
//
//	go test -run '^$' -bench ReadinessUnderAttack -benchtime 400x ./cmd/llm-prober/
func BenchmarkReadinessUnderAttack(b *testing.B) {
	var targets strings.Builder
	kinds := slices.Sorted(func(yield func(string) bool) {
		for k := range hostileHandlers {
			if !yield(k) {
				return
			}
		}
	})
	for _, kind := range kinds {
		srv := httptest.NewServer(hostileHandlers[kind])
		b.Cleanup(func() { srv.CloseClientConnections(); srv.Close() }) // the hanging handlers end with their connections
		for i := range 10 {
			fmt.Fprintf(&targets, "  - {name: %s-%d, url: %q, model: m, modules: [chat], server_metrics: {enabled: true, interval: 1s, timeout: 900ms}}\n",
				kind, i, srv.URL)
		}
	}
	cfg := filepath.Join(b.TempDir(), "llm-prober.yml")
	testutil.WriteFile(b, cfg, fmt.Sprintf(configTemplate, targets.String()))
	addr := testutil.FreeAddr(b)
	p := testutil.Start(b, "llm-prober", binary, "--web.listen-address="+addr, "--config.file="+cfg)
	b.Cleanup(func() { p.Stop(b) })

	// One keep-alive connection per endpoint, as a kubelet's probe has.
	client := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{}).DialContext}, Timeout: 10 * time.Second}
	get := func(path string) (time.Duration, int) {
		start := time.Now()
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			return time.Since(start), 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(start), resp.StatusCode
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, code := get("/-/ready"); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("not ready within 20 s:\n%s", p.Log())
		}
	}
	time.Sleep(3 * time.Second) // every target probed and scraped at least once: all of them waiting

	stop := make(chan struct{})
	reloads := make(chan int, 1)
	go func() { // reloads while the handlers are measured
		n := 0
		defer func() { reloads <- n }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
			resp, err := http.Post("http://"+addr+"/-/reload", "", nil)
			if err == nil {
				resp.Body.Close()
				n++
			}
		}
	}()
	var ready, healthy []time.Duration
	b.ResetTimer()
	for range b.N {
		for _, ep := range []struct {
			path string
			into *[]time.Duration
		}{{"/-/ready", &ready}, {"/-/healthy", &healthy}} {
			d, code := get(ep.path)
			if code != http.StatusOK {
				b.Fatalf("%s: HTTP %d", ep.path, code)
			}
			*ep.into = append(*ep.into, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.StopTimer()
	close(stop)
	b.ReportMetric(p99ms(ready), "ready-p99-ms")
	b.ReportMetric(p99ms(healthy), "healthy-p99-ms")
	b.ReportMetric(float64(<-reloads), "reloads")
}

// p99ms is the 99th percentile of ds, in milliseconds.
func p99ms(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[(len(s)*99)/100]) / float64(time.Millisecond)
}
