package prober

import (
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// Each real capture must give the right TTFT chunk, token counts and
// outcome. A long pause before the first content event and another after
// it pin TTFT to that event: a prober that took the role chunk as the first
// token would report ~0, one that waited for a later chunk ~2 pauses.
func TestFixtures(t *testing.T) {
	const pause = 60 * time.Millisecond
	cases := []struct {
		file          string
		api           config.API
		firstContent  int // index of the event holding the first token
		contentChunks int
		outputTokens  int
		promptTokens  int
		cachedTokens  int
		finish        string
		output        string
	}{
		{"vllm-sim-chat.sse", config.APIChat, 1, 4, 4, 11, 0, "length", "Testing@, #"},
		{"vllm-sim-completions.sse", config.APICompletions, 0, 3, 3, 4, 0, "length", "Testing, testing "},
		{"vllm-sim-old-chat-no-finish.sse", config.APIChat, 1, 3, 3, 6, 0, "", "I am your "},
		{"llamacpp-chat.sse", config.APIChat, 1, 5, 5, 14, 0, "length", "3f6d58332d"},
		{"llamacpp-completions.sse", config.APICompletions, 0, 2, 2, 4, 3, "length", "186"},
		{"aimock-chat.sse", config.APIChat, 1, 9, 11, 1, 0, "stop", "The quick brown fox jumps over the lazy dog."},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			var events []event
			for i, raw := range fixtureEvents(t, c.file) {
				var d time.Duration
				if i == c.firstContent || i == c.firstContent+1 {
					d = pause
				}
				events = append(events, event{delay: d, raw: raw})
			}
			srv := sseServer(t, "text/event-stream; charset=utf-8", events)
			m := chatModule()
			m.API = c.api
			r := runProbe(t, srv.URL, m, 5*time.Second)
			if !r.Success() {
				t.Fatalf("probe failed: %s: %v", r.Reason, r.Err)
			}
			if r.TTFT < pause || r.TTFT >= 2*pause {
				t.Errorf("TTFT %v not in [%v, %v): wrong first-token chunk", r.TTFT, pause, 2*pause)
			}
			if r.ContentChunks != c.contentChunks || r.OutputTokens != c.outputTokens || !r.UsageReported {
				t.Errorf("chunks/tokens/usage = %d/%d/%v, want %d/%d/true", r.ContentChunks, r.OutputTokens, r.UsageReported, c.contentChunks, c.outputTokens)
			}
			if r.PromptTokens != c.promptTokens || r.CachedTokens != c.cachedTokens {
				t.Errorf("prompt/cached = %d/%d, want %d/%d", r.PromptTokens, r.CachedTokens, c.promptTokens, c.cachedTokens)
			}
			if r.FinishReason != c.finish || r.Output != c.output {
				t.Errorf("finish/output = %q/%q, want %q/%q", r.FinishReason, r.Output, c.finish, c.output)
			}
			if len(r.ITL) != c.contentChunks-1 {
				t.Errorf("%d ITL values, want %d", len(r.ITL), c.contentChunks-1)
			}
			if r.E2EL < r.TTFT || r.Headers > r.TTFT {
				t.Errorf("phases out of order: headers %v ttft %v e2el %v", r.Headers, r.TTFT, r.E2EL)
			}
			wantTPOT := (r.E2EL - r.TTFT) / time.Duration(c.outputTokens-1)
			if r.TPOT != wantTPOT {
				t.Errorf("TPOT %v, want %v", r.TPOT, wantTPOT)
			}
		})
	}
}
