//go:build !linux

package rxstamp

import (
	"context"
	"net"
	"time"
)

// Kernel receive timestamps are used on Linux only; elsewhere a chunk's
// arrival is when the reader sees it.
func Dialer(int64, error) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return nil
}

// Conn is never made here.
type Conn struct{}

// ConnFor returns nil: no connection has kernel timestamps.
func ConnFor(net.Conn) *Conn { return nil }

// ArrivedBy returns now.
func (*Conn) ArrivedBy(now time.Time) time.Time { return now }

// The cap on response headers rides on Conn: Linux only.

// ArmHeaders does nothing.
func (*Conn) ArmHeaders() {}

// HeadersRead does nothing.
func (*Conn) HeadersRead() {}

// Tracked is 0.
func Tracked() int { return 0 }
