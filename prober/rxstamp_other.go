//go:build !linux

package prober

import (
	"context"
	"net"
	"time"
)

// Kernel receive timestamps are used on Linux only; elsewhere a chunk's
// arrival is when the reader sees it.
var dialRx func(ctx context.Context, network, addr string) (net.Conn, error)

type rxConn struct{}

func rxConnFor(net.Conn) *rxConn { return nil }

func (*rxConn) arrivedBy(now time.Time) time.Time { return now }

// The cap on response headers rides on rxConn: Linux only.
func (*rxConn) armHeaders()  {}
func (*rxConn) headersRead() {}
