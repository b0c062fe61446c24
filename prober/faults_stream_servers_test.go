package prober

import (
	"io"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// foreverHandler writes event every gap until the client leaves.
func foreverHandler(event string, gap time.Duration) http.HandlerFunc {
	return eventStream(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `data: {"choices":[{"delta":{"role":"assistant"}}]}`+"\n\n")
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, event); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			if gap > 0 {
				time.Sleep(gap)
			}
		}
	})
}

// dripHandler writes body one byte at a time.
func dripHandler(body string, perByte time.Duration) http.HandlerFunc {
	return eventStream(func(w http.ResponseWriter, _ *http.Request) {
		w.(http.Flusher).Flush()
		for i := range len(body) {
			time.Sleep(perByte)
			if _, err := io.WriteString(w, body[i:i+1]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
}

// peakHeapDuring samples the live heap while fn runs and returns its
// largest growth over the level before.
func peakHeapDuring(t *testing.T, fn func()) uint64 {
	t.Helper()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base && ms.HeapInuse-base > peak.Load() {
				peak.Store(ms.HeapInuse - base)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-done
	return peak.Load()
}
