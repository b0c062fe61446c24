package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are the captured streams plus edge cases of the framing
// (prober/fuzz_test.go seeds FuzzReadStream alike).
func fuzzSeeds(f *testing.F) {
	files, _ := filepath.Glob("../testdata/sse/*.sse")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "\n\n", ": ping\n\n", "data: [DONE]\n\n", "data:\n\n", "data: {}\r\n\r\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\ndata: \n\n",
		"data: {\"error\":{\"message\":\"boom\"}}\n\n",
		"data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":\"length\"}],\"usage\":{\"completion_tokens\":-5}}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":{\"completion_tokens\":1000000000}}\n\ndata: [DONE]\n\n",
		"event: x\nid: 1\nretry: 5\ndata: {}\n\n", "data: {\"choices\":null}\n\n", "data",
	} {
		f.Add([]byte(s))
	}
}

// FuzzSSE checks the framing alone: events never exceed MaxLineBytes, and
// the reader always ends (EOF or an error) on finite input.
func FuzzSSE(f *testing.F) {
	fuzzSeeds(f)
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
