package prober

import (
	"net/http"
	"time"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/config"
)

// NewClient builds the HTTP client that probes t: the target's TLS, auth
// and proxy settings, idle connections closed after keepAlive, and
// connections that carry kernel receive times where the OS has them.
func NewClient(t *config.Target, keepAlive time.Duration) (*http.Client, error) {
	opts := []commoncfg.HTTPClientOption{commoncfg.WithIdleConnTimeout(keepAlive)}
	if dialRx != nil {
		opts = append(opts, commoncfg.WithDialContextFunc(dialRx))
	}
	return commoncfg.NewClientFromConfig(t.HTTPClientConfig, "llm_prober", opts...)
}
