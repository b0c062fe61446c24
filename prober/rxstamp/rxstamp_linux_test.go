package rxstamp

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
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
	c, err := dialTimestamped(context.Background(), "tcp", ln.Addr().String(), 1<<20, errors.New("headers too large"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc, ok := c.(*Conn)
	if !ok || ConnFor(c) != rc {
		t.Fatalf("dialled %T, registered %v: no kernel timestamps on this system", c, ConnFor(c))
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
		if now.Sub(rc.ArrivedBy(now)) < time.Millisecond && round < 5 {
			continue // no kernel stamp: the read time was kept
		}
		if lag := rc.ArrivedBy(now).Sub(sent); lag < 0 || lag > 10*time.Millisecond {
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
	if ConnFor(c) != nil {
		t.Error("closed connection still registered")
	}
}
