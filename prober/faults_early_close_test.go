package prober

import (
	"net"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"
)

// A server that reads the request and hangs up (a crash, a proxy giving
// up) has broken the response before it started: stream_broken, not other.
func TestFaultClosedBeforeHeaders(t *testing.T) {
	for _, c := range []struct {
		name  string
		reset bool
	}{{"close", false}, {"reset", true}} {
		t.Run(c.name, func(t *testing.T) {
			leakCheck(t)
			addr := rawServer(t, func(conn net.Conn) {
				if readRequest(conn) && c.reset {
					conn.(*net.TCPConn).SetLinger(0)
				}
			})
			cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
			r := probeFault(t, cl, "http://"+addr, chatModule(), 5*time.Second, ReasonStreamBroken)
			if r.HTTPStatus != 0 {
				t.Errorf("status %d", r.HTTPStatus)
			}
			stillResponsive(t, cl)
		})
	}
}
