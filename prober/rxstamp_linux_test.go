package prober

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// A read that happens long after the data arrived reports the arrival.
func TestRxConnReportsKernelArrival(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	written := make(chan time.Time, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		// One event per byte from the client, written once the client
		// has switched timestamps on.
		for b := make([]byte, 1); ; {
			if _, err := c.Read(b); err != nil || b[0] == 0 {
				time.Sleep(200 * time.Millisecond)
				return
			}
			written <- time.Now()
			_, _ = c.Write([]byte("data: x\n\n"))
		}
	}()
	c, err := dialTimestamped(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc, ok := c.(*rxConn)
	if !ok || rxConnFor(c) != rc {
		t.Fatalf("dialled %T, registered %v: no kernel timestamps on this system", c, rxConnFor(c))
	}
	buf := make([]byte, 64)
	// The kernel switches timestamping on asynchronously: the first
	// packets after the very first socket asks may come without.
	for round := 0; ; round++ {
		if _, err := c.Write([]byte{1}); err != nil {
			t.Fatal(err)
		}
		sent := <-written
		time.Sleep(50 * time.Millisecond) // the reader is late
		if n, err := c.Read(buf); err != nil || string(buf[:n]) != "data: x\n\n" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
		now := time.Now()
		if now.Sub(rc.arrivedBy(now)) < time.Millisecond && round < 5 {
			continue // no kernel stamp: the read time was kept
		}
		if lag := rc.arrivedBy(now).Sub(sent); lag < 0 || lag > 10*time.Millisecond {
			t.Errorf("arrival %v after the write, want within 10ms (read %v after it)", lag, now.Sub(sent))
		}
		break
	}
	if _, err := c.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	// Deadlines and errors behave as on a plain TCPConn.
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	var ne net.Error
	if _, err := c.Read(buf); !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("read past the deadline: %v, want a timeout net.Error", err)
	}
	_ = c.SetReadDeadline(time.Time{})
	if _, err := c.Read(buf); !errors.Is(err, io.EOF) {
		t.Errorf("read after the peer closed: %v, want EOF", err)
	}
	c.Close()
	if rxConnFor(c) != nil {
		t.Error("closed connection still registered")
	}
}

// A probe whose reader is held up after the first token (a GC pause, a
// busy CPU) still measures the gaps at which the server sent the tokens,
// as long as the next token is read before a third one queues behind it
// (chunks read together share the arrival time of the last of them).
func TestLateReaderMeasuresTrueGaps(t *testing.T) {
	testutil.SkipIfOverloaded(t)
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: 10 * time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: 50 * time.Millisecond}
	o.MaxRunning, o.KVBlocks = 0, 0
	mock := mockvllm.New(o)
	defer mock.Close()
	srv := httptest.NewServer(mock)
	defer srv.Close()
	target := testTarget(srv.URL)
	target.Model = o.Model
	m := chatModule()
	m.MaxTokens, m.IgnoreEOS = 4, true
	client, err := NewClient(target, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	stall := func(msg string, _ ...any) {
		if msg == "first token" {
			time.Sleep(75 * time.Millisecond) // the second token waits 25ms to be read
		}
	}
	r := RunWithOptions(context.Background(), client, target, m, "late", "test", RunOptions{Trace: stall})
	if !r.Success() || len(r.ITL) != 3 {
		t.Fatalf("probe: %s %v, ITLs %v", r.Reason, r.Err, r.ITL)
	}
	tr, _ := mock.Emissions("late")
	var content []time.Time
	for _, ch := range tr.Chunks {
		if ch.Content {
			content = append(content, ch.At)
		}
	}
	for k, gap := range r.ITL {
		want := content[k+1].Sub(content[k])
		if d := (gap - want).Abs(); d > 10*time.Millisecond {
			t.Errorf("ITL[%d] = %v, sent %v apart (reader stalled 75ms after the first token)", k, gap, want)
		}
	}
}

// rxConnCount is how many timestamped connections are registered.
func rxConnCount() int {
	n := 0
	rxConns.Range(func(_, _ any) bool { n++; return true })
	return n
}

// Over TLS the timestamped connection is found under the TLS wrapper
// (HTTP/1.1); over HTTP/2, whose connection carries other streams, it is
// not used, and the probe falls back to the reader's clock.
func TestRxConnOverTLS(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		pki := testutil.NewPKI(t, "127.0.0.1", "localhost")
		srv := httptest.NewUnstartedServer(eventsHandler("text/event-stream", []event{
			{raw: `data: {"choices":[{"delta":{"content":"a"}}]}` + "\n\n"},
			{delay: 20 * time.Millisecond, raw: `data: {"choices":[{"delta":{"content":"b"}}]}` + "\n\n"},
			{raw: finishEvent}, {raw: doneEvent},
		}))
		srv.EnableHTTP2 = h2
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.Cert}}
		srv.StartTLS()
		target := testTarget(strings.Replace(srv.URL, "127.0.0.1", "localhost", 1))
		target.HTTPClientConfig.TLSConfig.CAFile = pki.CAFile
		target.HTTPClientConfig.EnableHTTP2 = true
		client, err := NewClient(target, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		r := Run(context.Background(), client, target, chatModule(), "tls", "test")
		// The kernel's receive times hold the server's 20 ms apart; the
		// reader's clock (HTTP/2) may read both chunks late at load 20.
		if !r.Success() || len(r.ITL) != 1 || (!h2 && r.ITL[0] < 20*time.Millisecond) {
			t.Errorf("h2=%v: %s %v, ITL %v", h2, r.Reason, r.Err, r.ITL)
		}
		if got := r.conn != nil; got == h2 || r.KernelTimes != got {
			t.Errorf("h2=%v: timestamped connection used: %v, result says kernel times %v", h2, got, r.KernelTimes)
		}
		client.CloseIdleConnections()
		srv.Close()
	}
}
