package stream

import (
	"runtime"
	"strings"
	"testing"
)

// One event of tens of thousands of choices decodes in linear time and
// memory, on both decoders: appending each choice's text to a string
// copied the text so far per choice (gigabytes for a 1 MiB event).
func TestParseManyChoicesIsLinear(t *testing.T) {
	const n = 38000 // just under 1 MiB
	event := []byte(`{"choices":[` + strings.TrimSuffix(strings.Repeat(`{"delta":{"content":"x"}},`, n), ",") + `]}`)
	if len(event) > MaxLineBytes {
		t.Fatalf("event of %d bytes would not pass the SSE reader", len(event))
	}
	for name, parse := range map[string]func([]byte) (Chunk, error){
		"scanner": func(b []byte) (Chunk, error) {
			p, ok := scanChunk(b)
			if !ok {
				t.Fatal("the scanner gave up on a plain chunk")
			}
			return p, nil
		},
		"encoding/json": parseChunkJSON,
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p, err := parse(event)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Generated || p.Content != strings.Repeat("x", n) {
				t.Errorf("content of %d bytes, want %d", len(p.Content), n)
			}
			// Linear: a small multiple of the event (encoding/json builds
			// a struct per choice). Quadratic appends allocate ~1.6 GB.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("%d MiB allocated to decode a %d KiB event", alloc>>20, len(event)>>10)
			}
		})
	}
}

// The answer a chunk contributes stops growing at MaxOutputBytes, the
// most a probe keeps, and both decoders agree on it.
func TestParseContentCapped(t *testing.T) {
	big := strings.Repeat("a", MaxOutputBytes/2+1)
	event := []byte(`{"choices":[{"text":"` + big + `"},{"text":"` + big + `"},{"text":"` + big + `"}]}`)
	p, ok := scanChunk(event)
	q, err := parseChunkJSON(event)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if p.Content != q.Content || p.buf != nil || q.buf != nil {
		t.Errorf("decoders disagree: %d vs %d bytes", len(p.Content), len(q.Content))
	}
	if len(p.Content) != 2*len(big) {
		t.Errorf("content %d bytes, want the two choices before the cap (%d)", len(p.Content), 2*len(big))
	}
}
