package prober

import (
	"net/http/httptest"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"
)

// Kernel receive times apply to TLS targets too (HTTP/1.1, one stream per
// connection); an HTTP/2 connection, opted in, falls back to the reader's
// clock and the result says so.
func TestKernelTimesOverTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(sseHandler(goodStream()))
	srv.EnableHTTP2 = true // the server offers h2; the client decides
	srv.StartTLS()
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		http2, want bool
	}{{false, true}, {true, false}} {
		hc := commoncfg.DefaultHTTPClientConfig
		hc.EnableHTTP2 = c.http2
		hc.TLSConfig.InsecureSkipVerify = true
		r := probeFault(t, faultClient(t, hc), srv.URL, chatModule(), 10*time.Second, ReasonNone)
		if r.KernelTimes != c.want {
			t.Errorf("enable_http2 %v: kernel times %v, want %v", c.http2, r.KernelTimes, c.want)
		}
	}
}
