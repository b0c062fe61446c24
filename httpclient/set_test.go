package httpclient

import (
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"
)

func TestSetSharesIdenticalConfigsOnly(t *testing.T) {
	s := NewSet(nil)
	a, b := clientConfig(t, false), clientConfig(t, false)
	ca, err := s.Get(a, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if cb, _ := s.Get(b, time.Minute); cb != ca {
		t.Error("identical configs got separate clients")
	}
	if cc, _ := s.Get(a, time.Second); cc == ca {
		t.Error("another keep-alive shared a client")
	}
	// Same redacted YAML, other secret: must not share.
	b.BasicAuth.Password = "other"
	if cb, _ := s.Get(b, time.Minute); cb == ca {
		t.Error("configs differing only in a secret shared a client")
	}
}

// A client that failed to build is retried on the next reload's Set, and
// then works once its CA file exists.
func TestSetRetriesFailedBuilds(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	cfg := commoncfg.DefaultHTTPClientConfig
	cfg.TLSConfig.CAFile = ca
	s := NewSet(nil)
	if _, err := s.Get(cfg, time.Minute); err == nil {
		t.Fatal("want an error for a missing CA file")
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	writeCA(t, srv, ca)
	// Within the same reload, the failure is remembered.
	if _, err := s.Get(cfg, time.Minute); err == nil {
		t.Error("a failed build was retried within one reload")
	}
	s2 := NewSet(nil)
	c, err := s2.Get(cfg, time.Minute)
	if err != nil {
		t.Fatalf("next reload: %v", err)
	}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	c.CloseIdleConnections()
}

func writeCA(t *testing.T, srv *httptest.Server, path string) {
	t.Helper()
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Offered clients keep their connections when reused; those no target
// takes any more have their idle connections closed.
func TestSetClosesUnusedClients(t *testing.T) {
	var closed atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	keep, drop := clientConfig(t, false), clientConfig(t, false)
	drop.BasicAuth.Username = "gone"
	first := NewSet(nil)
	ck, _ := first.Get(keep, time.Minute)
	cd, _ := first.Get(drop, time.Minute)
	for _, c := range []*http.Client{ck, cd} {
		resp, err := c.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	next := NewSet(nil)
	next.Offer(keep, time.Minute, ck)
	next.Offer(drop, time.Minute, cd)
	if c, _ := next.Get(keep, time.Minute); c != ck {
		t.Fatal("an offered client was not reused")
	}
	next.CloseUnused()
	deadline := time.Now().Add(5 * time.Second)
	for closed.Load() < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // would a second close follow?
	if n := closed.Load(); n != 1 {
		t.Errorf("%d connections closed, want only the unused client's", n)
	}
	ck.CloseIdleConnections()
}
