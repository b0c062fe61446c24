package prober

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fuzzSeeds are the captured streams plus edge cases of the framing.
func fuzzSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/sse/*.sse")
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

// FuzzReadStream feeds arbitrary bytes through the stream reader: it must
// not panic, must classify every failure, and must keep its bounds.
func FuzzReadStream(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &Result{Start: time.Now()}
		err := readStream(bytes.NewReader(data), r)
		if err != nil {
			var pe *probeError
			if !errors.As(err, &pe) || pe.reason == ReasonNone || pe.reason == ReasonOther {
				t.Fatalf("unclassified error %v", err)
			}
			if reasonOf(context.Background(), err) != pe.reason {
				t.Fatalf("reasonOf disagrees with %s", pe.reason)
			}
		} else if r.ContentChunks == 0 || !r.HasTTFT {
			t.Fatalf("success without content: %+v", r)
		}
		if len(r.Output) > MaxOutputBytes {
			t.Fatalf("output %d bytes > %d", len(r.Output), MaxOutputBytes)
		}
		if r.ContentChunks > 0 && len(r.ITL) < r.ContentChunks-1 {
			t.Fatalf("%d ITL gaps for %d chunks", len(r.ITL), r.ContentChunks)
		}
		if r.OutputTokens < 0 || r.TTFT < 0 || (err == nil && r.E2EL < r.TTFT) {
			t.Fatalf("impossible reading: tokens %d TTFT %s E2EL %s", r.OutputTokens, r.TTFT, r.E2EL)
		}
	})
}
