package tracectx

import (
	"crypto/tls"
	"net/http/httptrace"
	"sync"
	"testing"
)

// A dial the transport finishes after the probe has ended (a background
// dial kept for another request) neither races the probe's reading of
// its phases nor changes them: under -race, this test failed when the
// hooks wrote to the probe's Result directly.
func TestLatePhaseHooksDropped(t *testing.T) {
	ct := &httptrace.ClientTrace{}
	pr := &Recorder{}
	pr.Hooks(ct)
	ct.DNSDone(httptrace.DNSDoneInfo{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 100 {
			ct.ConnectDone("tcp", "127.0.0.1:1", nil)
			ct.TLSHandshakeDone(tls.ConnectionState{}, nil)
		}
	})
	got := pr.Close()
	wg.Wait()
	if got.DNSDone.IsZero() {
		t.Error("DNSDone before close was lost")
	}
	if after := pr.Close(); after != got {
		t.Errorf("phases changed after close: %+v, then %+v", got, after)
	}
}
