package workload

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// traceBytesPerRequest measures what reading a real trace file of n
// requests allocates in all and what it holds after, per request, less
// fixed costs (slack): a trace at the 4,000,000-request cap must stay
// within +64 MiB, which leaves 16 bytes a request held (14 are) and next to no
// garbage (garbage lets the heap grow to twice what is held).
func traceBytesPerRequest(t *testing.T, name, header, row string, n, cols int) (alloc, held float64) {
	t.Helper()
	if raceEnabled {
		t.Skip("allocations are counted without the race detector")
	}
	path := filepath.Join(t.TempDir(), name)
	var b strings.Builder
	b.WriteString(header)
	for range n {
		b.WriteString(row)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	b = strings.Builder{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tr, err := LoadTrace(path, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// Fixed: the scanner's 64 KiB buffer, a first chunk's doublings (at
	// most 1 MiB a column) and a last chunk's unused part (1 MiB a column).
	slack := float64(cols) * (1 << 20)
	alloc = (float64(after.TotalAlloc-before.TotalAlloc) - 2*slack - 64<<10) / float64(n)
	runtime.GC()
	runtime.ReadMemStats(&after)
	held = (float64(after.HeapAlloc) - float64(before.HeapAlloc) - slack) / float64(n)
	runtime.KeepAlive(tr)
	if tr.Len() != n {
		t.Fatalf("%d requests, want %d", tr.Len(), n)
	}
	return alloc, held
}

func TestTraceMemoryPerRequest(t *testing.T) {
	const n = 300_000
	for _, c := range []struct{ name, header, row string }{
		{"mooncake.jsonl", "", `{"timestamp": 1, "input_length": 10, "output_length": 5}` + "\n"},
		{"burstgpt.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n", "5,ChatGPT,472,18,490,Conversation log\n"},
	} {
		alloc, held := traceBytesPerRequest(t, c.name, c.header, c.row, n, 1)
		t.Logf("%s: %.1f bytes allocated, %.1f held a request", c.name, alloc, held)
		if held > 14.5 || alloc > 14.5 {
			t.Errorf("%s: %.1f bytes allocated and %.1f held a request (less fixed costs), want at most 14.5", c.name, alloc, held)
		}
	}
}

// A trace with hash ids holds 4 bytes a request more and 8 an id.
func TestTraceMemoryHashIDs(t *testing.T) {
	const n = 200_000
	alloc, held := traceBytesPerRequest(t, "ids.jsonl", "", `{"timestamp": 1, "input_length": 1000, "output_length": 5, "hash_ids": [1, 2]}`+"\n", n, 3)
	t.Logf("%.1f bytes allocated, %.1f held a request", alloc, held)
	if held > 14+4+16 || alloc > 14+4+16 {
		t.Errorf("%.1f bytes allocated and %.1f held a request with two hash ids (less fixed costs), want at most 34", alloc, held)
	}
}
