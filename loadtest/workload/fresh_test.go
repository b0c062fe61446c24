package workload

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// The prefix-cache reset waits as long as --timeout allows, not a fixed
// 30 s: a hung endpoint sees the client leave (the handler gives up after
// 20 s and records it, which a 30 s wait would reach).
func TestResetPrefixCacheFollowsTimeout(t *testing.T) {
	var heldTooLong atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
			heldTooLong.Store(true)
			w.WriteHeader(http.StatusOK)
		}
	}))
	defer srv.Close()
	ok, err := ResetPrefixCache(t.Context(), srv.Client(), &config.Target{URL: srv.URL}, 100*time.Millisecond)
	if ok || err == nil || heldTooLong.Load() {
		t.Errorf("reset against a hung endpoint with a 100 ms timeout: ok %v, err %v, held past 20 s %v", ok, err, heldTooLong.Load())
	}
}
