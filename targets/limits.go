package targets

import (
	"context"
	"fmt"
	"net"
	"time"

	promcfg "github.com/prometheus/common/config"
)

// MaxSDBodyBytes caps what one http_sd refresh reads, headers included:
// Prometheus's http discovery reads the whole answer and decodes it (a
// 300 MB answer cost 1.2 GB). 10,000 targets with a few labels each are
// about 1–2 MB.
const MaxSDBodyBytes = 4 << 20

// sdClientOptions make every HTTP discovery client read at most
// MaxSDBodyBytes per connection, and open one connection per refresh so
// that the cap is per answer. (kubernetes_sd builds its own client.)
func sdClientOptions() []promcfg.HTTPClientOption {
	return []promcfg.HTTPClientOption{
		promcfg.WithDialContextFunc(limitedDial(MaxSDBodyBytes)),
		promcfg.WithKeepAlivesDisabled(),
	}
}

func limitedDial(limit int64) promcfg.DialContextFunc {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &limitedConn{Conn: c, left: limit, limit: limit}, nil
	}
}

// limitedConn fails reads past its limit. The transport reads a
// connection from one goroutine at a time.
type limitedConn struct {
	net.Conn
	left, limit int64
}

func (c *limitedConn) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("discovery answer over the %d-byte limit", c.limit)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.Conn.Read(p)
	c.left -= int64(n)
	return n, err
}
