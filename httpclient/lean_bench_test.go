package httpclient_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/httpclient"
)

// BenchmarkConnMemory pins the memory of one open streaming connection
// (heap and goroutine stacks after a collection, client and loopback
// server together, 256 connections): New against NewLean, whose
// difference is go-conntrack's trace log and the smaller buffers.
//
//	go test -run '^$' -bench ConnMemory -benchtime 3x ./httpclient/
func BenchmarkConnMemory(b *testing.B) {
	builders := map[string]func(commoncfg.HTTPClientConfig, time.Duration, httpclient.DialFunc) (*http.Client, error){
		"New": httpclient.New, "NewLean": httpclient.NewLean,
	}
	for _, name := range []string{"New", "NewLean"} {
		b.Run(name, func(b *testing.B) {
			const conns = 256
			var perConn float64
			for range b.N {
				perConn += connMemory(b, builders[name], conns)
			}
			b.ReportMetric(perConn/float64(b.N), "B/conn")
		})
	}
}

func connMemory(b *testing.B, build func(commoncfg.HTTPClientConfig, time.Duration, httpclient.DialFunc) (*http.Client, error), conns int) float64 {
	release := make(chan struct{})
	var open sync.WaitGroup
	open.Add(conns)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("data: {}\n\n"))
		w.(http.Flusher).Flush()
		<-release
	}))
	defer srv.Close()
	cfg := commoncfg.DefaultHTTPClientConfig
	cfg.FollowRedirects = false
	client, err := build(cfg, time.Minute, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer client.CloseIdleConnections()
	before := inUse()
	var done sync.WaitGroup
	done.Add(conns)
	for range conns {
		go func() {
			defer done.Done()
			resp, err := client.Get(srv.URL)
			open.Done()
			if err != nil {
				b.Error(err)
				return
			}
			buf := make([]byte, 64)
			for {
				if _, err := resp.Body.Read(buf); err != nil {
					break
				}
			}
			_ = resp.Body.Close()
		}()
	}
	open.Wait()
	during := inUse()
	close(release)
	done.Wait()
	return float64(during-before) / float64(conns)
}

// inUse is the heap and stack memory in use after a collection.
func inUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc + m.StackInuse)
}
