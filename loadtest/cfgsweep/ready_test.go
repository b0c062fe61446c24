package cfgsweep

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The readiness wait has one deadline over every probe, and says what was
// last wrong: nothing listening, a hung answer, an oversized or foreign
// one, or no model yet.
func TestReadyHostile(t *testing.T) {
	err := waitReady(t.Context(), &http.Client{}, "http://127.0.0.1:1", 300*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), "not ready within 300ms (--server-ready-timeout): /health:") {
		t.Errorf("nothing listening: %v", err)
	}
	release := make(chan struct{})
	defer close(release)
	for name, c := range map[string]struct {
		h    http.HandlerFunc
		want string
	}{
		"hangs": {func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}, "/health: "},
		"huge": {func(w http.ResponseWriter, r *http.Request) {
			w.Write(make([]byte, maxProbeBody+10))
		}, "answer over 1048576 bytes"},
		"not json": {func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }, "/v1/models: not a model list"},
		"no model": {func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"data": []}`)) }, "no model served yet"},
		"503":      {func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, "/health: HTTP 503"},
	} {
		srv := httptest.NewServer(c.h)
		err := waitReady(t.Context(), srv.Client(), srv.URL, 500*time.Millisecond, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
		srv.CloseClientConnections()
		srv.Close()
	}
	// A server that exits ends the wait at once, whatever its deadline.
	exited := make(chan struct{})
	close(exited)
	if err := waitReady(t.Context(), &http.Client{}, "http://127.0.0.1:1", time.Hour, exited); err == nil || !strings.Contains(err.Error(), "exited before it was ready") {
		t.Errorf("exited: %v", err)
	}
	// Nor is a ready answer on its port ours once it has exited: another
	// process took the port.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"data": [{"id": "someone-else"}]}`))
	}))
	defer other.Close()
	if err := waitReady(t.Context(), other.Client(), other.URL, time.Hour, exited); err == nil || !strings.Contains(err.Error(), "exited before it was ready") {
		t.Errorf("another server on its port: %v", err)
	}
}
