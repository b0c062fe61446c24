package prober

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/prober/stream"
)

// benchTokens is the length of the stream the CPU benchmarks decode.
const benchTokens = 2000

// captureStream records the exact bytes the mock sends for a chat stream
// of n tokens with continuous usage (what a vLLM server sends when asked
// with stream_options.continuous_usage_stats), so the benchmarks decode
// real vLLM-shaped bytes from memory, with no network or timers.
func captureStream(tb testing.TB, n int) []byte {
	tb.Helper()
	m := chatModule()
	m.MaxTokens, m.IgnoreEOS = n, true
	return testutil.CaptureStream(tb, func(url, model string) (*http.Response, error) {
		t := testTarget(url)
		t.Model = model
		req, err := newRequest(context.Background(), t, m, "bench", "bench")
		if err != nil {
			return nil, err
		}
		return http.DefaultClient.Do(req)
	})
}

// BenchmarkReadStream is the prober's whole per-stream decode and
// measurement path (SSE framing, chunk decoding, arrival times, ITL
// split, output kept for validators) on a 2,000-token stream.
func BenchmarkReadStream(b *testing.B) {
	data := captureStream(b, benchTokens)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := &Result{Start: time.Now()}
		if err := readStream(bytes.NewReader(data), r); err != nil {
			b.Fatal(err)
		}
		if r.OutputTokens != benchTokens {
			b.Fatalf("%d tokens, want %d", r.OutputTokens, benchTokens)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchTokens, "ns/token")
}

// BenchmarkSSEReader is the SSE framing alone.
func BenchmarkSSEReader(b *testing.B) {
	data := captureStream(b, benchTokens)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := stream.NewReader(bytes.NewReader(data))
		for {
			if _, err := s.Next(); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchTokens, "ns/token")
}

// BenchmarkParseChunk decodes one typical content chunk.
func BenchmarkParseChunk(b *testing.B) {
	data := captureStream(b, 8)
	s := stream.NewReader(bytes.NewReader(data))
	var chunk []byte
	for {
		d, err := s.Next()
		if err != nil {
			b.Fatal("no content chunk")
		}
		if p, err := stream.Parse(d); err == nil && p.Generated {
			chunk = bytes.Clone(d)
			break
		}
	}
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := stream.Parse(chunk); err != nil {
			b.Fatal(err)
		}
	}
}
