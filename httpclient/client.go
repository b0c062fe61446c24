// Package httpclient builds the HTTP clients of probes and server-metrics
// scrapes from a target's prometheus/common client config, shares one
// client (and its connection pool) between targets with identical
// settings, and refuses redirects that would carry a target's credentials
// anywhere else. NewLean is the same client for a load generator holding
// thousands of connections (bench): less memory per connection.
package httpclient

import (
	"context"
	"net"
	"net/http"
	"time"

	commoncfg "github.com/prometheus/common/config"
)

// DialFunc dials a client's connections; nil means the default dialer.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// New builds a client for cfg whose idle connections close after
// keepAlive, dialling with dial if it is not nil. With follow_redirects
// on, it follows only redirects that stay on the original scheme, host and
// port and keep the method (see CheckRedirect).
func New(cfg commoncfg.HTTPClientConfig, keepAlive time.Duration, dial DialFunc) (*http.Client, error) {
	opts := []commoncfg.HTTPClientOption{commoncfg.WithIdleConnTimeout(keepAlive)}
	if dial != nil {
		opts = append(opts, commoncfg.WithDialContextFunc(dial))
	}
	c, err := commoncfg.NewClientFromConfig(cfg, "llm_prober", opts...)
	if err != nil {
		return nil, err
	}
	if cfg.FollowRedirects {
		c.CheckRedirect = CheckRedirect
	}
	return c, nil
}
