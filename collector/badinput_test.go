package collector

import (
	"bytes"
	"compress/gzip"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
)

const goodBody = "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\",engine=\"0\"} 3\n"

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every bad input fails the scrape with its own reason, never a crash, and
// our /metrics still gathers cleanly.
func TestBadInputs(t *testing.T) {
	big := bytes.Repeat([]byte("# padding comment line\n"), MaxBodyBytes/20)
	// Compressed once: 16 MiB through gzip per request can outlast the
	// scrape timeout on a loaded machine under -race.
	bomb := gz(t, make([]byte, MaxBodyBytes+1))
	cases := []struct {
		name    string
		reason  string
		timeout time.Duration
		handler http.HandlerFunc
	}{
		{"timeout", reasonTimeout, 200 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}},
		{"slow body", reasonTimeout, 200 * time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("# TYPE a gauge\n"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}},
		{"404", reasonHTTPStatus, 0, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }},
		{"500", reasonHTTPStatus, 0, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }},
		{"html", reasonParse, 0, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<!DOCTYPE html>\n<html><body>Not metrics</body></html>\n"))
		}},
		{"json", reasonParse, 0, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`[{"gpuMemUsage": 1}]`))
		}},
		{"malformed line", reasonParse, 0, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(goodBody + "vllm:num_requests_waiting{model_name=\"m\" 1\n"))
		}},
		{"bad value", reasonParse, 0, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("vllm:num_requests_waiting twelve\n"))
		}},
		{"duplicate series", reasonDuplicate, 0, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(goodBody + "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 4\n"))
		}},
		{"duplicate bucket", reasonDuplicate, 0, func(w http.ResponseWriter, r *http.Request) {
			h := "vllm:time_to_first_token_seconds"
			_, _ = w.Write([]byte("# TYPE " + h + " histogram\n" + h + "_bucket{le=\"1\"} 1\n" + h + "_bucket{le=\"1\"} 2\n" + h + "_bucket{le=\"+Inf\"} 2\n" + h + "_count 2\n" + h + "_sum 1\n"))
		}},
		{"duplicate label", reasonParse, 0, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte("vllm:num_requests_running{x=\"1\",x=\"2\"} 1\n"))
		}},
		{"bad gzip", reasonDecode, 0, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write([]byte("this is not gzip"))
		}},
		{"truncated gzip", reasonDecode, 0, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			z := gz(t, []byte(goodBody))
			_, _ = w.Write(z[:len(z)-6])
		}},
		{"too large, declared", reasonTooLarge, 0, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(MaxBodyBytes+1))
			_, _ = w.Write(big[:1024]) // the length alone is enough to refuse
		}},
		{"too large, chunked", reasonTooLarge, 0, func(w http.ResponseWriter, r *http.Request) {
			w.(http.Flusher).Flush() // no Content-Length
			for i := 0; i < 2 && r.Context().Err() == nil; i++ {
				_, _ = w.Write(big)
			}
		}},
		{"gzip bomb", reasonTooLarge, 0, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(bomb)
		}},
		{"body cut short", reasonConnect, 0, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			_, _ = w.Write([]byte(goodBody))
			// Returning early makes the server close the connection mid-body.
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := serve(t, c.handler)
			m, reg := newTestManager(t)
			tg := target("bad", srv.URL)
			if c.timeout > 0 {
				tg.ServerMetrics.Timeout = model.Duration(c.timeout)
			}
			m.Apply([]*config.Target{tg})
			waitScrapes(t, m, "bad", 1)
			if got := failures(t, reg, "bad", c.reason); got != 1 {
				t.Errorf("failures{reason=%q} = %v, want 1", c.reason, got)
			}
			if s := series(t, reg, "llm_prober_server_scrape_success", nil); len(s) != 1 || s[0].GetGauge().GetValue() != 0 {
				t.Errorf("scrape_success = %v, want one series = 0", s)
			}
			if s := series(t, reg, "llm_prober_server_requests_running", nil); len(s) != 0 {
				t.Errorf("data exported after a failed first scrape: %v", s)
			}
		})
	}
}

func TestConnectRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	m, reg := newTestManager(t)
	m.Apply([]*config.Target{target("gone", "http://"+addr)})
	waitScrapes(t, m, "gone", 1)
	if got := failures(t, reg, "gone", reasonConnect); got != 1 {
		t.Errorf("connect failures = %v, want 1", got)
	}
}

func TestGzipAndHeaders(t *testing.T) {
	var accept, encoding string
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		accept, encoding = r.Header.Get("Accept"), r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(gz(t, []byte(goodBody)))
	})
	m, reg := newTestManager(t)
	m.Apply([]*config.Target{target("z", srv.URL)})
	waitScrapes(t, m, "z", 1)
	if !strings.HasPrefix(accept, "text/plain;version=0.0.4") || encoding != "gzip" {
		t.Errorf("Accept=%q Accept-Encoding=%q", accept, encoding)
	}
	s := series(t, reg, "llm_prober_server_requests_running", map[string]string{"target": "z"})
	if len(s) != 1 || s[0].GetGauge().GetValue() != 3 {
		t.Fatalf("requests_running = %v, want 3", s)
	}
}

// A failed scrape keeps the last good data until it is stale.
func TestStaleDataDropped(t *testing.T) {
	var fail atomic.Bool
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(goodBody))
	})
	m, reg := newTestManager(t)
	tg := target("s", srv.URL)
	m.Apply([]*config.Target{tg})
	waitScrapes(t, m, "s", 1)
	fail.Store(true)
	m.mu.Lock()
	sc := m.scrapers["s"]
	m.mu.Unlock()
	sc.scrapeOnce(context.Background()) // the scraper goroutine is parked on its hour-long ticker

	if got := failures(t, reg, "s", reasonHTTPStatus); got != 1 {
		t.Fatalf("http_status failures = %v", got)
	}
	if s := series(t, reg, "llm_prober_server_requests_running", nil); len(s) != 1 {
		t.Fatalf("fresh data should still be served after one failure, got %v", s)
	}
	limit := sc.spec.staleAfter()
	if limit != 2*time.Hour+5*time.Second {
		t.Errorf("staleAfter = %v", limit)
	}
	m.now = func() time.Time { return time.Now().Add(limit + time.Second) }
	if s := series(t, reg, "llm_prober_server_requests_running", nil); len(s) != 0 {
		t.Errorf("stale data still served: %v", s)
	}
	age := series(t, reg, "llm_prober_server_scrape_data_age_seconds", nil)
	if len(age) != 1 || age[0].GetGauge().GetValue() < limit.Seconds() {
		t.Errorf("data age = %v, want > %v", age, limit.Seconds())
	}
}
