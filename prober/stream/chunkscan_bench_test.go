package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The scanner is only a fast path: whenever it answers, its answer must be
// the one encoding/json gives (parseChunkJSON), and it must answer for
// the chunks real servers send, or it saves nothing.

var scanEdgeCases = []string{
	`{}`, `null`, `[]`, `""`, `1`, `{"choices":null}`, `{"choices":[]}`, `{"choices":[null]}`,
	`{"choices":[{}]}`, `{"choices":[{"delta":null}]}`, `{"choices":[{"delta":{}}]}`,
	`{"choices":[{"delta":{"content":"a\nb\"c\\d\/\u00e9\ud83d\ude00"}}]}`,
	`{"choices":[{"delta":{"content":"\ud800 lone"}}]}`,
	"{\"choices\":[{\"text\":\"\xff\xfe bad utf8\"}]}",
	"{\"choices\":[{\"text\":\"caf\xc3\xa9\"}]}",
	`{"choices":[{"text":"a"},{"text":"b","finish_reason":"stop"},{"delta":{"content":"c"},"finish_reason":""}]}`,
	`{"choices":[{"text":"","delta":{"content":""},"finish_reason":null}]}`,
	`{"choices":[{"delta":{"reasoning_content":"think"}}]}`, `{"choices":[{"delta":{"reasoning":""}}]}`,
	`{"choices":[{"delta":{"reasoning":null,"reasoning_content":"\u0000"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[]}}]}`, `{"choices":[{"delta":{"tool_calls":[ ]}}]}`,
	`{"choices":[{"delta":{"tool_calls":null}}]}`, `{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"f","arguments":"{}"}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":{}}}]}`, `{"choices":[{"delta":{"tool_calls":"x"}}]}`,
	`{"Choices":[{"text":"a"}]}`, `{"choices":[{"Text":"a"}]}`, `{"choices":[{"delta":{"CONTENT":"a"}}]}`,
	`{"usage":{"Prompt_Tokens":3}}`, `{"\u0063hoices":[{"text":"a"}]}`, "{\"choic\xc3\xa9s\":1}",
	"{\"choices\":[{\"\xe2\x84\xaaey\":1}]}", // Kelvin sign: folds to k in encoding/json
	`{"choices":[{"text":"a"}],"choices":[{"text":"b"}]}`, `{"choices":[{"text":"a","text":"b"}]}`,
	`{"choices":[{"delta":{"content":"a"},"delta":{"reasoning":"b"}}]}`,
	`{"usage":{"prompt_tokens":1,"prompt_tokens":2}}`, `{"usage":null,"usage":{"prompt_tokens":1}}`,
	`{"usage":{}}`, `{"usage":null}`, `{"usage":{"prompt_tokens":1.0}}`, `{"usage":{"prompt_tokens":1e2}}`,
	`{"usage":{"prompt_tokens":-0,"completion_tokens":-5}}`, `{"usage":{"prompt_tokens":"1"}}`,
	`{"usage":{"prompt_tokens":null}}`, `{"usage":{"completion_tokens":99999999999999999999}}`,
	`{"usage":{"completion_tokens":999999999999999999}}`, `{"usage":{"completion_tokens":01}}`,
	`{"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6,"prompt_tokens_details":{"cached_tokens":3}}}`,
	`{"usage":{"prompt_tokens_detail":{"cached_tokens":2}}}`, `{"usage":{"prompt_tokens_details":null,"prompt_tokens_detail":{"cached_tokens":2}}}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":1},"prompt_tokens_detail":{"cached_tokens":2}}}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":1,"audio_tokens":null}}}`, `{"usage":{"prompt_tokens_details":[]}}`,
	`{"error":null,"choices":[{"text":"a"}]}`, `{"error":{"message":"boom","type":"X"}}`, `{"error":"boom"}`,
	`{"choices":[{"text":"a"}]} `, `{"choices":[{"text":"a"}]}x`, `{}{}`, `{"a":1,}`, `{"a" 1}`, `{,}`, `{"a":[1,]}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":1E+5}`, `{"a":-0.5e-3}`, `{"a":tru}`, `{"a":nul}`,
	"{\"a\":\"tab\there\"}", `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"unterminated}`,
	" \t\r\n{ \"choices\" : [ { \"delta\" : { \"content\" : \"x\" } } ] , \"usage\" : null } \n",
	`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":1,"total_tokens":1,"completion_tokens":0}}`,
	`{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
	`{"a":` + strings.Repeat(`{"b":`, 70) + `1` + strings.Repeat("}", 70) + `}`,
}

// scanSeeds are the edge cases, every event of the SSE fixtures and of a
// mock vLLM stream.
func scanSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, c := range scanEdgeCases {
		out = append(out, []byte(c))
	}
	files, _ := filepath.Glob("../testdata/sse/*.sse")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, sseData(b)...)
	}
	return append(out, sseData(captureStream(tb, 5))...)
}

func sseData(b []byte) [][]byte {
	var out [][]byte
	s := NewReader(bytes.NewReader(b))
	for {
		d, err := s.Next()
		if err != nil {
			return out
		}
		if string(d) != "[DONE]" {
			out = append(out, bytes.Clone(d))
		}
	}
}

func checkScan(t *testing.T, data []byte) {
	t.Helper()
	fast, ok := scanChunk(data)
	want, err := parseChunkJSON(data)
	if !ok {
		return // parseChunk falls back to parseChunkJSON
	}
	if err != nil {
		t.Fatalf("%q: scanner accepted a chunk encoding/json rejects: %v", data, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("%q: scanner %+v (usage %+v), encoding/json %+v (usage %+v)", data, fast, fast.Usage, want, want.Usage)
	}
}

func TestScanChunkMatchesJSON(t *testing.T) {
	for _, d := range scanSeeds(t) {
		checkScan(t, d)
	}
}

// The chunks vLLM-compatible servers send take the fast path.
func TestScanChunkTakesRealChunks(t *testing.T) {
	files, _ := filepath.Glob("../testdata/sse/*.sse")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, d := range sseData(b) {
			if _, ok := scanChunk(d); !ok {
				t.Errorf("%s: fast path refused %s", f, d)
			}
		}
	}
	mock := sseData(captureStream(t, 5))
	if len(mock) < 5 {
		t.Fatalf("mock stream of %d events, want 5 tokens' worth", len(mock))
	}
	for _, d := range mock {
		if _, ok := scanChunk(d); !ok {
			t.Errorf("mock: fast path refused %s", d)
		}
	}
}

func FuzzScanChunkMatchesJSON(f *testing.F) {
	for _, d := range scanSeeds(f) {
		f.Add(d)
	}
	f.Fuzz(checkScan)
}

// BenchmarkParseChunkJSON is the encoding/json decoding that parseChunk
// used for every chunk before the scanner, for comparison with
// BenchmarkParseChunk.
func BenchmarkParseChunkJSON(b *testing.B) {
	chunk := sseData(captureStream(b, 8))[2]
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseChunkJSON(chunk); err != nil {
			b.Fatal(err)
		}
	}
}
