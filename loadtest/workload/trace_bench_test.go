package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkTraceItem builds a Mooncake-sized prompt (6,955 tokens: 13
// full 512-token blocks and a cut one), in the request's goroutine
// before its send: it must stay well inside sendLead.
func BenchmarkTraceItem(b *testing.B) {
	ids := make([]string, 14)
	for i := range ids {
		ids[i] = fmt.Sprint(1000 + i)
	}
	tr, err := readTrace(strings.NewReader(`{"timestamp": 0, "input_length": 6955, "output_length": 52, "hash_ids": [`+strings.Join(ids, ",")+`]}`),
		"b.jsonl", TraceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if it := tr.Item(0); len(it.Prompt) == 0 {
			b.Fatal("empty")
		}
	}
}

// BenchmarkTraceLoad reads a real 100,000-request Mooncake file: B/op
// over 100,000 is the bytes a request costs (14 held, next to no garbage).
func BenchmarkTraceLoad(b *testing.B) {
	path := filepath.Join(b.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(`{"timestamp": 1, "input_length": 10, "output_length": 5}`+"\n", 100_000)), 0o600); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if tr, err := LoadTrace(path, TraceOptions{}); err != nil || tr.Len() != 100_000 {
			b.Fatal(tr, err)
		}
	}
}
