package prober

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestStreamMemory bounds what one stream allocates while it is read: a
// load test holds thousands at once, so a per-stream buffer sized for the
// longest line (32 KiB, issue 35) costs tens of MB. A 64-token vLLM
// stream needs a few KiB.
func TestStreamMemory(t *testing.T) {
	data := captureStream(t, 64)
	const streams = 50
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range streams {
		r := &Result{Start: time.Now()}
		if err := readStream(bytes.NewReader(data), r); err != nil || r.OutputTokens != 64 || len(r.ITL) != 63 {
			t.Fatalf("readStream: %v, %d tokens, %d gaps", err, r.OutputTokens, len(r.ITL))
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / streams; per > 16<<10 {
		t.Errorf("a 64-token stream allocates %d bytes, want at most 16 KiB", per)
	}
}

// TestSSELongerThanBuffer: an event whose lines exceed the read buffer
// comes out whole, as before the buffer shrank.
func TestSSELongerThanBuffer(t *testing.T) {
	long := strings.Repeat("x", 5*sseBufferBytes+17)
	in := "data: a\n\ndata: " + long + "\r\ndata: " + long[:sseBufferBytes] + "\n\n: ping\ndata: b\n\n"
	s := newSSEReader(strings.NewReader(in))
	for i, want := range []string{"a", long + "\n" + long[:sseBufferBytes], "b"} {
		got, err := s.next()
		if err != nil || string(got) != want {
			t.Fatalf("event %d: %d bytes, err %v; want %d bytes", i, len(got), err, len(want))
		}
	}
	if _, err := s.next(); err == nil {
		t.Error("no end after the last event")
	}
}
