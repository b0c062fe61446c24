package prober

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"
)

// Valid tiny chunks as fast as the server can write them, never a [DONE]:
// the probe stops at MaxContentChunks, long before its timeout, and keeps
// a bounded amount of memory whether the stream is plain or a gzip bomb.
func TestFaultEndlessTokensHitTheCap(t *testing.T) {
	burst := strings.Repeat(`data: {"choices":[{"delta":{"content":"x"}}]}`+"\n\n", 1000)
	for _, c := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"one event per write", foreverHandler(contentEvent("tok "), 0)},
		{"1000 events per write", foreverHandler(burst, 0)},
		{"gzip bomb", eventStream(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			defer zw.Close()
			for r.Context().Err() == nil {
				if _, err := io.WriteString(zw, burst); err != nil {
					return
				}
			}
		})},
	} {
		t.Run(c.name, func(t *testing.T) {
			leakCheck(t)
			url := handlerServer(t, c.h)
			cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
			var r *Result
			peak := peakHeapDuring(t, func() {
				// The timeout is far beyond what the cap takes to reach.
				r = probeFault(t, cl, url, chatModule(), time.Minute, ReasonLimitExceeded)
			})
			t.Logf("peak heap growth %d KiB", peak>>10)
			if peak > 32<<20 {
				t.Errorf("heap grew by %d MiB for a probe capped at %d chunks", peak>>20, MaxContentChunks)
			}
			errContains(t, r, "content chunks")
			if len(r.Output) > MaxOutputBytes || len(r.ITL) >= MaxContentChunks {
				t.Errorf("output %d bytes, %d ITL gaps: over the caps", len(r.Output), len(r.ITL))
			}
			stillResponsive(t, cl)
		})
	}
}

// An HTML error page sent as text/event-stream (a proxy's, say) is a body
// that is not SSE, not a stream cut short.
func TestFaultHTMLAsEventStream(t *testing.T) {
	leakCheck(t)
	url := handlerServer(t, eventStream(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>nginx</body>\n</html>\n")
	}))
	cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	r := probeFault(t, cl, url, chatModule(), 5*time.Second, ReasonMalformedChunk)
	errContains(t, r, "<html>")
}

// A redirect is not followed by default: it fails with its own reason that
// names the location, and the other server never sees the request or the
// target's secret header, whatever the status code.
func TestFaultRedirectNotFollowed(t *testing.T) {
	var hits atomic.Int32
	other := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		sseHandler(goodStream())(w, r)
	})
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			leakCheck(t)
			url := handlerServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other+r.URL.Path, code)
			})
			hc := commoncfg.DefaultHTTPClientConfig
			hc.FollowRedirects = false
			hc.HTTPHeaders = &commoncfg.Headers{Headers: map[string]commoncfg.Header{
				"X-Api-Key": {Secrets: []commoncfg.Secret{"s3cret"}}}}
			cl := faultClient(t, hc)
			r := probeFault(t, cl, url, chatModule(), 5*time.Second, ReasonRedirect)
			errContains(t, r, other)
			if r.HTTPStatus != code {
				t.Errorf("status %d, want %d", r.HTTPStatus, code)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server redirected to got %d requests", n)
	}
}
