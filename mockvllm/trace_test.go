package mockvllm

import (
	"context"
	"io"
	"testing"
	"time"
)

// within checks got ≈ want, allowing slack only after want (timers fire late,
// never early) plus a little before for clock granularity.
func within(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	const slack = 20 * time.Millisecond
	if d := got.Sub(want); d < -time.Millisecond || d > slack {
		t.Errorf("%s off schedule by %v", what, d)
	}
}

func TestTraceTimings(t *testing.T) {
	o := fastOptions()
	o.TTFT = Dist{Mean: 50 * time.Millisecond}
	o.ITL = Dist{Mean: 20 * time.Millisecond}
	h := start(t, o)
	resp := h.post(context.Background(), "/v1/chat/completions",
		chatBody(6, map[string]any{"stream_options": map[string]any{"include_usage": true}}), "X-Request-Id", "timing-1")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	tr, ok := h.s.Emissions("timing-1")
	if !ok {
		t.Fatal("no trace right after the response was read")
	}
	if tr.FinishReason != "length" || tr.CompletionTokens != 6 || tr.Status != 200 || !tr.Stream || tr.Endpoint != "chat" {
		t.Errorf("trace summary: %+v", tr)
	}
	within(t, "headers", tr.HeadersWritten, tr.Arrival)
	within(t, "scheduled", tr.Scheduled, tr.Arrival)
	var content []Chunk
	for _, c := range tr.Chunks {
		if c.Kind == KindContent {
			content = append(content, c)
		}
	}
	if len(content) != 6 || tr.Chunks[0].Kind != KindRole || tr.Chunks[len(tr.Chunks)-1].Kind != KindDone {
		t.Fatalf("chunks: %+v", tr.Chunks)
	}
	within(t, "role chunk", tr.Chunks[0].At, tr.Scheduled.Add(o.TTFT.Mean))
	within(t, "first token", tr.FirstToken, tr.Scheduled.Add(o.TTFT.Mean))
	for k, c := range content {
		// Absolute schedule: no drift accumulates across chunks.
		within(t, "content chunk", c.At, tr.Scheduled.Add(o.TTFT.Mean+time.Duration(k)*o.ITL.Mean))
		if c.Tokens != 1 || !c.Content {
			t.Errorf("chunk %d: %+v", k, c)
		}
	}
	if !tr.End.Equal(tr.Chunks[len(tr.Chunks)-1].At) {
		t.Errorf("End %v is not the [DONE] write time", tr.End)
	}
}

func TestTraceGeneratedIDAndRing(t *testing.T) {
	o := fastOptions()
	o.TraceCapacity = 2
	o.TTFT, o.ITL = Dist{}, Dist{}
	h := start(t, o)
	var ids []string
	for range 3 {
		resp := h.post(context.Background(), "/v1/completions", map[string]any{"prompt": "x", "max_tokens": 1})
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		id := resp.Header.Get("X-Request-Id")
		if id == "" {
			t.Fatal("no generated X-Request-Id")
		}
		ids = append(ids, id)
	}
	if _, ok := h.s.Emissions(ids[0]); ok {
		t.Error("oldest trace should have been evicted")
	}
	for _, id := range ids[1:] {
		if tr, ok := h.s.Emissions(id); !ok || tr.Stream || len(tr.Chunks) != 1 || tr.Chunks[0].Kind != KindBody {
			t.Errorf("trace %s: %+v %v", id, tr, ok)
		}
	}
}

func TestHeadersWithFirstChunk(t *testing.T) {
	o := fastOptions()
	o.TTFT = Dist{Mean: 40 * time.Millisecond}
	o.HeadersWithFirstChunk = true
	h := start(t, o)
	resp := h.post(context.Background(), "/v1/chat/completions", chatBody(2, nil), "X-Request-Id", "late-headers")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	tr, _ := h.s.Emissions("late-headers")
	within(t, "headers", tr.HeadersWritten, tr.Scheduled.Add(o.TTFT.Mean))
}

func TestDistSample(t *testing.T) {
	rng := newLockedRand(7)
	d := Dist{Mean: 10 * time.Millisecond, Jitter: 4 * time.Millisecond}
	lo, hi := time.Hour, time.Duration(0)
	for range 2000 {
		v := d.sample(rng)
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo < 6*time.Millisecond || hi > 14*time.Millisecond || hi-lo < 7*time.Millisecond {
		t.Errorf("uniform [6ms,14ms]: got [%v,%v]", lo, hi)
	}
	if v := (Dist{Mean: time.Millisecond, Jitter: 5 * time.Millisecond}).sample(rng); v < 0 {
		t.Errorf("negative sample %v", v)
	}
}
