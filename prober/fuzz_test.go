package prober

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// FuzzReadStream feeds arbitrary bytes through the stream reader: it must
// not panic, must classify every failure, and must keep its bounds.
func FuzzReadStream(f *testing.F) {
	testutil.AddSSESeeds(f, "testdata/sse")
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
