package loadtest

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout bounds the silence of one request: from its send to
// the response headers, and between reads of its body. A server's queue
// before the first token counts as silence, so it is generous; --timeout
// still bounds the whole request.
const DefaultIdleTimeout = 2 * time.Minute

// idleWatch cancels one request when no data has come for d.
type idleWatch struct {
	d     time.Duration
	timer *time.Timer
	fired atomic.Bool
}

type idleKey struct{}

// watchIdle returns ctx, cancelled after d without data (kick resets it),
// and the watch; stop releases its timer.
func watchIdle(ctx context.Context, d time.Duration) (context.Context, *idleWatch, func()) {
	ctx, cancel := context.WithCancel(ctx)
	w := &idleWatch{d: d}
	w.timer = time.AfterFunc(d, func() {
		w.fired.Store(true)
		cancel()
	})
	return context.WithValue(ctx, idleKey{}, w), w, func() { w.timer.Stop(); cancel() }
}

func (w *idleWatch) kick() {
	if !w.fired.Load() {
		w.timer.Reset(w.d)
	}
}

// idleTransport resets a request's idle watch on its headers and on
// every read of its body.
type idleTransport struct{ base http.RoundTripper }

func (t idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if w, ok := req.Context().Value(idleKey{}).(*idleWatch); ok && err == nil {
		w.kick()
		resp.Body = &idleBody{ReadCloser: resp.Body, w: w}
	}
	return resp, err
}

type idleBody struct {
	io.ReadCloser
	w *idleWatch
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.kick()
	}
	return n, err
}

// withIdleTransport is a copy of c whose requests an idleWatch in their
// context can bound.
func withIdleTransport(c *http.Client) *http.Client {
	cc := *c
	base := cc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc.Transport = idleTransport{base: base}
	return &cc
}
