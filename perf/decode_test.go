package perf

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/prober"
)

// streamTokens is the length of the decoded stream, as in the prober
// package's BenchmarkReadStream.
const streamTokens = 2000

var (
	streamOnce  sync.Once
	streamBytes []byte
)

// vllmStream returns the exact bytes the mock vLLM server sends for a
// 2,000-token chat stream with continuous usage stats, captured once.
func vllmStream(tb testing.TB) []byte {
	streamOnce.Do(func() {
		body := `{"model":"mock-model","stream":true,"max_tokens":2000,"ignore_eos":true,` +
			`"messages":[{"role":"user","content":"hi"}],` +
			`"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`
		streamBytes = testutil.CaptureStream(tb, func(url, _ string) (*http.Response, error) {
			return http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
		})
	})
	return streamBytes
}

// memTransport answers every request with the captured stream from
// memory, so both clients pay for their whole path but no network.
type memTransport struct{ data []byte }

func (m memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}},
		Body:    io.NopCloser(bytes.NewReader(m.data)),
		Request: req, ContentLength: -1,
	}, nil
}

func perToken(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/streamTokens, "ns/token")
}

// BenchmarkDecode decodes the same 2,000-token vLLM stream four ways:
//
//   - llm-prober/run: prober.Run, the whole probe (request, SSE, chunk
//     decoding, per-chunk timestamps, ITL, evaluation);
//   - openai-go/client: Chat.Completions.NewStreaming and iterating the
//     chunks, nothing else (no timestamps, no output kept);
//   - openai-go/ssestream: its SSE decoder and typed stream over an
//     http.Response, i.e. the decoding part of the client alone.
//
// The prober's path does strictly more work per chunk than either
// openai-go variant.
func BenchmarkDecode(b *testing.B) {
	data := vllmStream(b)
	client := &http.Client{Transport: memTransport{data}}

	b.Run("llm-prober/run", func(b *testing.B) {
		t := &config.Target{Name: "t", URL: "http://mem", Model: "mock-model"}
		m := &config.Module{Name: "chat", API: config.APIChat, MaxTokens: streamTokens, IgnoreEOS: true,
			Messages: []config.Message{{Role: "user", Content: "hi"}}}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			r := prober.Run(context.Background(), client, t, m, "perf", "perf")
			if !r.Success() || r.OutputTokens != streamTokens {
				b.Fatalf("probe: %s %v, %d tokens", r.Reason, r.Err, r.OutputTokens)
			}
		}
		perToken(b)
	})

	b.Run("openai-go/client", func(b *testing.B) {
		oc := openai.NewClient(option.WithBaseURL("http://mem/v1"), option.WithAPIKey("x"),
			option.WithHTTPClient(client), option.WithMaxRetries(0))
		params := openai.ChatCompletionNewParams{
			Model:         "mock-model",
			Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
			MaxTokens:     openai.Int(streamTokens),
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			s := oc.Chat.Completions.NewStreaming(context.Background(), params)
			drainContent(b, "openai-go", s)
			_ = s.Close()
		}
		perToken(b)
	})

	b.Run("openai-go/ssestream", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			resp := &http.Response{StatusCode: http.StatusOK,
				Header: http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}},
				Body:   io.NopCloser(bytes.NewReader(data))}
			s := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(resp), nil)
			drainContent(b, "ssestream", s)
		}
		perToken(b)
	})
}

// drainContent reads s to its end and fails b unless it held
// streamTokens content chunks.
func drainContent(b *testing.B, name string, s *ssestream.Stream[openai.ChatCompletionChunk]) {
	n := 0
	for s.Next() {
		if c := s.Current(); len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
			n++
		}
	}
	if err := s.Err(); err != nil || n != streamTokens {
		b.Fatalf("%s: %v, %d content chunks", name, err, n)
	}
}
