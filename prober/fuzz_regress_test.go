package prober

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Found by FuzzReadStream: a chunk whose cumulative usage jumps by a
// billion tokens made the ITL split allocate a billion gaps.
func TestHugeUsageJumpBoundsITL(t *testing.T) {
	stream := contentEvent("a") +
		`data: {"choices":[{"delta":{"content":"b"}}],"usage":{"completion_tokens":1000000000}}` + "\n\n" +
		"data: [DONE]\n\n"
	r := &Result{Start: time.Now()}
	peak := peakHeapDuring(t, func() {
		if err := readStream(strings.NewReader(stream), r); reasonOf(context.Background(), err) != ReasonInvalidUsage {
			t.Fatalf("err %v, want %s", err, ReasonInvalidUsage)
		}
	})
	if len(r.ITL) >= MaxContentChunks {
		t.Errorf("%d ITL gaps, want fewer than %d", len(r.ITL), MaxContentChunks)
	}
	if peak > 64<<20 {
		t.Errorf("heap grew by %d MiB", peak>>20)
	}
	if r.OutputTokens != 0 {
		t.Errorf("output tokens %d: an invalid count was kept", r.OutputTokens)
	}
}
