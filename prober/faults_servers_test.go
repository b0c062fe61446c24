package prober

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// mockWithFault serves a mock vLLM whose every request gets fault f.
func mockWithFault(t *testing.T, f mockvllm.Fault, edit ...func(*mockvllm.Options)) string {
	t.Helper()
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: 5 * time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: time.Millisecond}
	o.Model = "m"
	if f != mockvllm.FaultNone {
		o.Faults = mockvllm.FaultRates{f: 1}
	}
	for _, e := range edit {
		e(&o)
	}
	mock := mockvllm.New(o)
	srv := httptest.NewServer(mock)
	t.Cleanup(func() { mock.Close(); srv.Close() })
	return srv.URL
}

// handlerServer serves h on loopback.
func handlerServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// rawServer hands every accepted TCP connection to handle, for faults
// net/http cannot produce (resets, silence during the TLS handshake).
func rawServer(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() { defer wg.Done(); defer c.Close(); handle(c) }()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return l.Addr().String()
}

// readRequest consumes one HTTP request from c.
func readRequest(c net.Conn) bool {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return false
	}
	req.Body.Close()
	return true
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
