package cfgsweep

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// The port freePort found free may be taken before the server binds it:
// the server exits ("address already in use") with another process on
// its port, and the configuration starts again on another port instead
// of failing. A server that exits with its port free is a failed row.
func TestPortTakenBeforeBindRetried(t *testing.T) {
	thief, err := net.Listen("tcp", "127.0.0.1:0") // the other process, on "our" port
	if err != nil {
		t.Fatal(err)
	}
	defer thief.Close()
	go func() { // it answers nothing: each connection closed at once
		for {
			c, err := thief.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	stolen := thief.Addr().(*net.TCPAddr).Port
	var got []int
	var log bytes.Buffer
	o := Options{Configs: configs("serve"), Server: helper(t), URL: "http://127.0.0.1:{port}",
		ReadyTimeout: time.Minute, StopGrace: 5 * time.Second, Client: &http.Client{}, TokensPerRequest: 48,
		KneeGoodput: 99, Log: &log,
		Measure: func(ctx context.Context, _ Configuration, _ string) (*sweep.Sweep, error) { return fakeSweep(ctx, 10) }}
	o.ports = func() (int, error) {
		if len(got) == 0 {
			got = append(got, stolen)
			return stolen, nil
		}
		p, err := freePort()
		got = append(got, p)
		return p, err
	}
	res, err := Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Status != StatusOK || len(got) != 2 ||
		!strings.Contains(log.String(), "was taken by another process before the server bound it") {
		t.Errorf("ports %v, rows %+v, log:\n%s", got, res.Rows, log.String())
	}

	// Always taken: a bounded number of tries, then a failed row.
	got, log = nil, bytes.Buffer{}
	o.Log = &log
	o.ports = func() (int, error) { got = append(got, stolen); return stolen, nil }
	if res, err = Run(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Status != StatusFailed || len(got) != portTries {
		t.Errorf("always taken: ports %v, rows %+v", got, res.Rows)
	}

	// Exits with its port free: no retry.
	got = nil
	o.Configs = configs("exit")
	o.ports = func() (int, error) { p, err := freePort(); got = append(got, p); return p, err }
	if res, err = Run(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Status != StatusFailed || len(got) != 1 {
		t.Errorf("a server that fails on its own: ports %v, rows %+v", got, res.Rows)
	}
}
