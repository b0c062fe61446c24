package prober

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

// TestStreamMemory bounds what one stream allocates while it is read: a
// load test holds thousands at once, so a per-stream buffer sized for the
// longest line (32 KiB, issue 35) costs tens of MB. A 64-token vLLM
// stream needs a few KiB; the read buffer is most of them.
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
	// 8 KiB with the 2 KiB read buffer; 10 KiB with the 4 KiB one.
	if per := (after.TotalAlloc - before.TotalAlloc) / streams; per > 9<<10 {
		t.Errorf("a 64-token stream allocates %d bytes, want at most 9 KiB", per)
	}
}
