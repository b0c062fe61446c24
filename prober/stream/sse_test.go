package stream

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// FuzzSSE checks the framing alone: events never exceed MaxLineBytes, and
// the reader always ends (EOF or an error) on finite input.
func FuzzSSE(f *testing.F) {
	testutil.AddSSESeeds(f, "../testdata/sse")
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewReader(bytes.NewReader(data))
		for i := 0; ; i++ {
			ev, err := s.Next()
			if err != nil {
				return
			}
			if len(ev) > MaxLineBytes {
				t.Fatalf("event of %d bytes", len(ev))
			}
			if i > len(data) {
				t.Fatalf("%d events from %d bytes", i, len(data))
			}
		}
	})
}

// TestSSELongerThanBuffer: an event whose lines exceed the read buffer
// comes out whole, as before the buffer shrank.
func TestSSELongerThanBuffer(t *testing.T) {
	long := strings.Repeat("x", 5*sseBufferBytes+17)
	in := "data: a\n\ndata: " + long + "\r\ndata: " + long[:sseBufferBytes] + "\n\n: ping\ndata: b\n\n"
	s := NewReader(strings.NewReader(in))
	for i, want := range []string{"a", long + "\n" + long[:sseBufferBytes], "b"} {
		got, err := s.Next()
		if err != nil || string(got) != want {
			t.Fatalf("event %d: %d bytes, err %v; want %d bytes", i, len(got), err, len(want))
		}
	}
	if _, err := s.Next(); err == nil {
		t.Error("no end after the last event")
	}
}
