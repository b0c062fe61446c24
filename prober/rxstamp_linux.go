package prober

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rxConn is a TCP connection that asks the kernel when the data it reads
// arrived (SO_TIMESTAMPNS). A chunk's arrival time is then the kernel's,
// not the moment the reading goroutine got a CPU: a GC pause, a busy
// scheduler or a slow consumer no longer adds to TTFT and ITL.
type rxConn struct {
	tcp  *net.TCPConn
	raw  syscall.RawConn
	oob  []byte       // control messages; reads are never concurrent
	last atomic.Int64 // kernel receive time (Unix ns) of the latest data read
}

// rxConns finds the rxConn behind a request's connection (by local
// address: TLS and connection tracking wrap the connection we dialled).
var rxConns sync.Map // string -> *rxConn

var rxDialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}

// dialRx dials TCP with kernel receive timestamps (nil where the OS has
// none).
var dialRx = dialTimestamped

// dialTimestamped dials TCP with kernel receive timestamps, or returns a
// plain connection if the socket refuses them.
func dialTimestamped(ctx context.Context, network, addr string) (net.Conn, error) {
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
	rc := &rxConn{tcp: tcp, raw: raw, oob: make([]byte, unix.CmsgSpace(16))}
	rxConns.Store(tcp.LocalAddr().String(), rc)
	return rc, nil
}

func rxConnFor(local net.Addr) *rxConn {
	if local == nil {
		return nil
	}
	c, _ := rxConns.Load(local.String())
	rc, _ := c.(*rxConn)
	return rc
}

func (c *rxConn) Read(p []byte) (int, error) {
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
		return 0, c.opError(rerr)
	case err != nil:
		return 0, c.opError(os.NewSyscallError("recvmsg", err))
	case n == 0:
		return 0, io.EOF
	}
	c.last.Store(kernelStamp(c.oob[:oobn]))
	return n, nil
}

// kernelStamp returns the receive time in a recvmsg's control messages,
// or 0 (unknown: data that arrived before timestamping was on).
func kernelStamp(oob []byte) int64 {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPNS && len(m.Data) >= int(unsafe.Sizeof(unix.Timespec{})) {
			// The kernel's struct timespec, in this platform's layout.
			return (*unix.Timespec)(unsafe.Pointer(&m.Data[0])).Nano()
		}
	}
	return 0
}

func (c *rxConn) opError(err error) error {
	return &net.OpError{Op: "read", Net: "tcp", Source: c.tcp.LocalAddr(), Addr: c.tcp.RemoteAddr(), Err: err}
}

// arrivedBy maps now back to when the latest data read arrived, if the
// kernel said so and the two clocks agree (no step in between).
func (c *rxConn) arrivedBy(now time.Time) time.Time {
	k := c.last.Load()
	if k == 0 {
		return now
	}
	lag := time.Duration(now.UnixNano() - k)
	if lag < 0 || lag > time.Minute {
		return now
	}
	return now.Add(-lag)
}

func (c *rxConn) Write(p []byte) (int, error)        { return c.tcp.Write(p) }
func (c *rxConn) LocalAddr() net.Addr                { return c.tcp.LocalAddr() }
func (c *rxConn) RemoteAddr() net.Addr               { return c.tcp.RemoteAddr() }
func (c *rxConn) SetDeadline(t time.Time) error      { return c.tcp.SetDeadline(t) }
func (c *rxConn) SetReadDeadline(t time.Time) error  { return c.tcp.SetReadDeadline(t) }
func (c *rxConn) SetWriteDeadline(t time.Time) error { return c.tcp.SetWriteDeadline(t) }

func (c *rxConn) Close() error {
	rxConns.CompareAndDelete(c.tcp.LocalAddr().String(), c)
	return c.tcp.Close()
}
