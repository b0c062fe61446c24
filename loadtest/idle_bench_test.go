package loadtest

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"
)

// BenchmarkIdleBodyRead is the idle timeout's cost per body read (one
// SSE chunk): a timer reset, against the plain read of the same bytes.
func BenchmarkIdleBodyRead(b *testing.B) {
	chunk := bytes.Repeat([]byte("x"), 256)
	buf := make([]byte, 512)
	for _, idle := range []bool{false, true} {
		name := "plain"
		if idle {
			name = "idle"
		}
		b.Run(name, func(b *testing.B) {
			_, w, stop := watchIdle(context.Background(), time.Minute)
			defer stop()
			r := bytes.NewReader(chunk)
			var body io.Reader = io.NopCloser(r)
			if idle {
				body = &idleBody{ReadCloser: io.NopCloser(r), w: w}
			}
			for b.Loop() {
				r.Reset(chunk)
				if _, err := body.Read(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
