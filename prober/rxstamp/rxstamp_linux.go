package rxstamp

import (
	"context"
	"io"
	"math"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Conn is a TCP connection that asks the kernel when the data it reads
// arrived (SO_TIMESTAMPNS). A chunk's arrival time is then the kernel's,
// not the moment the reading goroutine got a CPU: a GC pause, a busy
// scheduler or a slow consumer no longer adds to TTFT and ITL.
type Conn struct {
	tcp     *net.TCPConn
	raw     syscall.RawConn
	key     string       // in rxConns
	oob     []byte       // control messages; reads are never concurrent
	arrived atomic.Int64 // when the data read last arrived, as monotonic time since rxEpoch; 0 = nothing read
	// headerLeft is what may still be read before the response headers
	// are in (ArmHeaders, HeadersRead); noHeaderCap while none is awaited.
	headerLeft atomic.Int64
	headerCap  int64 // what ArmHeaders allows
	headerErr  error // what Read returns past headerCap
}

const noHeaderCap = math.MaxInt64

// ArmHeaders starts counting what the connection reads towards the cap on
// response headers: the request about to be sent has it (GotConn).
func (c *Conn) ArmHeaders() {
	if c != nil {
		c.headerLeft.Store(c.headerCap)
	}
}

// HeadersRead stops counting: the response headers are in, what follows
// is the body.
func (c *Conn) HeadersRead() {
	if c != nil {
		c.headerLeft.Store(noHeaderCap)
	}
}

// rxEpoch anchors arrival times on the monotonic clock, so that a wall
// clock step after a read does not move them.
var rxEpoch = time.Now()

// maxRxLag bounds how long data may have waited in the socket before it
// was read; a larger lag means the clocks disagree (a step).
const maxRxLag = time.Minute

// rxConns finds the Conn behind a request's connection. TLS and
// connection tracking wrap the connection we dialled, but keep both of its
// addresses, which together are unique (the local port alone is not: the
// kernel reuses it towards other destinations).
var rxConns sync.Map // connKey -> *Conn

func connKey(local, remote net.Addr) string { return local.String() + "|" + remote.String() }

var rxDialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}

// Dialer returns a dial function for TCP with kernel receive timestamps
// (nil where the OS has none). Between ArmHeaders and HeadersRead a
// connection reads at most headerCap bytes; past them Read returns
// headerErr, the caller's own error so that it classifies it.
func Dialer(headerCap int64, headerErr error) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dialTimestamped(ctx, network, addr, headerCap, headerErr)
	}
}

// dialTimestamped dials TCP with kernel receive timestamps, or returns a
// plain connection if the socket refuses them.
func dialTimestamped(ctx context.Context, network, addr string, headerCap int64, headerErr error) (net.Conn, error) {
	c, err := rxDialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tcp, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return c, nil
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c, nil
	}
	rc := &Conn{tcp: tcp, raw: raw, key: connKey(tcp.LocalAddr(), tcp.RemoteAddr()),
		oob:       make([]byte, unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))),
		headerCap: headerCap, headerErr: headerErr}
	rc.headerLeft.Store(noHeaderCap)
	rxConns.Store(rc.key, rc)
	return rc, nil
}

// ConnFor returns the timestamped connection under c, if there is one.
func ConnFor(c net.Conn) *Conn {
	if c == nil || c.LocalAddr() == nil || c.RemoteAddr() == nil {
		return nil
	}
	v, _ := rxConns.Load(connKey(c.LocalAddr(), c.RemoteAddr()))
	rc, _ := v.(*Conn)
	return rc
}

// Read reads like the TCP connection and notes when the data arrived.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n, oobn int
	var err error
	rerr := c.raw.Read(func(fd uintptr) bool {
		for {
			n, oobn, _, _, err = unix.Recvmsg(int(fd), p, c.oob, 0)
			if err != unix.EINTR {
				return err != unix.EAGAIN
			}
		}
	})
	switch {
	case rerr != nil:
		return 0, rerr // a *net.OpError already (deadline, closed)
	case err != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.tcp.LocalAddr(), Addr: c.tcp.RemoteAddr(),
			Err: os.NewSyscallError("recvmsg", err)}
	case n == 0:
		return 0, io.EOF
	}
	if c.headerLeft.Load() != noHeaderCap && c.headerLeft.Add(-int64(n)) < 0 {
		return 0, c.headerErr
	}
	// The lag is taken now, against the kernel's wall-clock stamp, and
	// kept as monotonic time. Data without a stamp arrived by now.
	now := time.Now()
	at := now
	if k := kernelStamp(c.oob[:oobn]); k != 0 {
		if lag := time.Duration(now.UnixNano() - k); lag >= 0 && lag < maxRxLag {
			at = now.Add(-lag)
		}
	}
	c.arrived.Store(int64(at.Sub(rxEpoch)))
	return n, nil
}

// kernelStamp returns the receive time in a recvmsg's control messages,
// or 0 (unknown: data that arrived before timestamping was on). It parses
// in place: it runs on every read.
func kernelStamp(oob []byte) int64 {
	for len(oob) > 0 {
		h, data, rest, err := unix.ParseOneSocketControlMessage(oob)
		if err != nil {
			return 0
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPNS && len(data) >= int(unsafe.Sizeof(unix.Timespec{})) {
			// The kernel's struct timespec, in this platform's layout.
			return (*unix.Timespec)(unsafe.Pointer(&data[0])).Nano()
		}
		oob = rest
	}
	return 0
}

// ArrivedBy returns when the data read last arrived, never later than now.
func (c *Conn) ArrivedBy(now time.Time) time.Time {
	v := c.arrived.Load()
	if v == 0 {
		return now
	}
	if at := rxEpoch.Add(time.Duration(v)); at.Before(now) {
		return at
	}
	return now
}

// Read, Write and the rest are those of the TCP connection underneath.

func (c *Conn) Write(p []byte) (int, error)        { return c.tcp.Write(p) }
func (c *Conn) LocalAddr() net.Addr                { return c.tcp.LocalAddr() }
func (c *Conn) RemoteAddr() net.Addr               { return c.tcp.RemoteAddr() }
func (c *Conn) SetDeadline(t time.Time) error      { return c.tcp.SetDeadline(t) }
func (c *Conn) SetReadDeadline(t time.Time) error  { return c.tcp.SetReadDeadline(t) }
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.tcp.SetWriteDeadline(t) }

// Close closes the connection and forgets it.
func (c *Conn) Close() error {
	rxConns.CompareAndDelete(c.key, c)
	return c.tcp.Close()
}

// Tracked is how many timestamped connections are open (a leak check for
// tests).
func Tracked() int {
	n := 0
	rxConns.Range(func(_, _ any) bool { n++; return true })
	return n
}
