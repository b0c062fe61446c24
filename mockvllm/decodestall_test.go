package mockvllm

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"
)

// contentGaps are the gaps between a trace's content writes, and the
// tokens carried by each chunk before the gap.
func contentGaps(tr Trace) (gaps []time.Duration, tokensBefore []int) {
	var last time.Time
	sent := 0
	for _, c := range tr.Chunks {
		if !c.Content {
			continue
		}
		if !last.IsZero() {
			gaps, tokensBefore = append(gaps, c.At.Sub(last)), append(tokensBefore, sent)
		}
		last, sent = c.At, sent+c.Tokens
	}
	return gaps, tokensBefore
}

// Every 2nd request stalls for at least 300 ms after the chunk carrying
// output token 3, the others not at all; the stall shows on the wire as
// one long gap between content writes (a lower bound only: load lengthens
// gaps, it never shortens the stall, which runs from after the write).
func TestDecodeStallEveryNthRequest(t *testing.T) {
	for _, perChunk := range []int{1, 2} {
		t.Run(fmt.Sprintf("tokens_per_chunk=%d", perChunk), func(t *testing.T) {
			o := fastOptions()
			o.ITL = Dist{Mean: time.Millisecond}
			o.TokensPerChunk = perChunk
			o.DecodeStall = DecodeStall{Every: 2, For: 300 * time.Millisecond, AfterTokens: 3}
			h := start(t, o)
			for i := 1; i <= 4; i++ {
				id := fmt.Sprintf("s%d-%d", perChunk, i)
				resp := h.post(context.Background(), "/v1/chat/completions", chatBody(8, nil), "X-Request-Id", id)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				tr, ok := h.s.Emissions(id)
				if !ok || tr.CompletionTokens != 8 {
					t.Fatalf("%s: trace %v, %d tokens", id, ok, tr.CompletionTokens)
				}
				if want := map[bool]time.Duration{true: 300 * time.Millisecond}[i%2 == 0]; tr.Stall != want {
					t.Fatalf("%s: stall %v, want %v", id, tr.Stall, want)
				}
				if tr.Stall == 0 {
					continue
				}
				gaps, before := contentGaps(tr)
				// The stall follows the chunk that carries token 3: with one
				// token a chunk that is chunk 3; with two (the first step
				// carries one) chunk 2, holding tokens 2 and 3.
				found := false
				for k, g := range gaps {
					if before[k] == 3 {
						found = true
						if g < tr.Stall {
							t.Errorf("%s: gap after token 3 is %v, want at least %v (gaps %v)", id, g, tr.Stall, gaps)
						}
					}
				}
				if !found {
					t.Errorf("%s: no chunk ends at token 3: gaps %v after %v tokens", id, gaps, before)
				}
			}
		})
	}
}
