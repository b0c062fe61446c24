package e2ekit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestWaitHTTP(t *testing.T) {
	// Ready on the third request: each one leaves a mark in hits first.
	hits := make(chan struct{}, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits <- struct{}{}
		if len(hits) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	if err := WaitHTTP(nil, srv.URL, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := len(hits); got != 3 {
		t.Errorf("%d requests, want 3 (ready on the third)", got)
	}

	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	if err := WaitHTTP(nil, "http://"+addr, 300*time.Millisecond); err == nil || strings.Contains(err.Error(), "exited") {
		t.Errorf("nothing listening: %v", err)
	}
}
