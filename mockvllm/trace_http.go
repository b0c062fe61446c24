package mockvllm

import (
	"net/http"
	"time"
)

// traceJSON is a Trace over HTTP: wall-clock times in Unix nanoseconds
// (a client on the same host compares them with its own clock), and the
// intervals a benchmark's error is checked against in milliseconds.
type traceJSON struct {
	ID               string      `json:"id"`
	Endpoint         string      `json:"endpoint"`
	Stream           bool        `json:"stream"`
	Fault            string      `json:"fault,omitempty"`
	Status           int         `json:"status"`
	FinishReason     string      `json:"finish_reason"`
	PromptTokens     int         `json:"prompt_tokens"`
	CachedTokens     int         `json:"cached_tokens"`
	CompletionTokens int         `json:"completion_tokens"`
	Preemptions      int         `json:"preemptions"`
	StallMs          float64     `json:"stall_ms,omitempty"` // injected decode stall (--stall-every)
	Arrival          int64       `json:"arrival_unix_ns"`
	Scheduled        int64       `json:"scheduled_unix_ns"`
	FirstToken       int64       `json:"first_token_unix_ns"`
	HeadersWritten   int64       `json:"headers_written_unix_ns"`
	End              int64       `json:"end_unix_ns"`
	QueueMs          float64     `json:"queue_ms"`        // scheduled − arrival
	TTFTMs           float64     `json:"ttft_ms"`         // first content write − arrival
	E2ELMs           float64     `json:"e2el_ms"`         // end − arrival
	Chunks           []chunkJSON `json:"chunks"`          // every write, in order
	ContentGapsMs    []float64   `json:"content_gaps_ms"` // between content writes: the true ITLs
}

type chunkJSON struct {
	At      int64  `json:"at_unix_ns"` // taken just before the write
	Kind    string `json:"kind"`
	Tokens  int    `json:"tokens"`
	Content bool   `json:"content"`
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func sinceMs(from, to time.Time) float64 {
	if from.IsZero() || to.IsZero() {
		return 0
	}
	return float64(to.Sub(from)) / 1e6
}

// handleTrace answers GET /trace?id=REQUEST_ID with the request's true
// emission-time trace (404 if unknown or evicted), so a benchmark in
// another process can check its measurements against the server's truth.
func (s *Server) handleTrace(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if id == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "give ?id=REQUEST_ID (the X-Request-Id sent)"})
		return
	}
	t, ok := s.traces.get(id)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no trace for this id (unknown, unfinished or evicted)"})
		return
	}
	out := traceJSON{ID: t.ID, Endpoint: t.Endpoint, Stream: t.Stream, Fault: string(t.Fault), Status: t.Status,
		FinishReason: t.FinishReason, PromptTokens: t.PromptTokens, CachedTokens: t.CachedTokens,
		CompletionTokens: t.CompletionTokens, Preemptions: t.Preemptions, StallMs: float64(t.Stall) / 1e6,
		Arrival: unixNano(t.Arrival), Scheduled: unixNano(t.Scheduled), FirstToken: unixNano(t.FirstToken),
		HeadersWritten: unixNano(t.HeadersWritten), End: unixNano(t.End),
		QueueMs: sinceMs(t.Arrival, t.Scheduled), E2ELMs: sinceMs(t.Arrival, t.End),
		Chunks: make([]chunkJSON, 0, len(t.Chunks)), ContentGapsMs: []float64{}}
	var last time.Time
	for _, c := range t.Chunks {
		out.Chunks = append(out.Chunks, chunkJSON{At: unixNano(c.At), Kind: string(c.Kind), Tokens: c.Tokens, Content: c.Content})
		if !c.Content {
			continue
		}
		if last.IsZero() {
			out.TTFTMs = sinceMs(t.Arrival, c.At)
		} else {
			out.ContentGapsMs = append(out.ContentGapsMs, sinceMs(last, c.At))
		}
		last = c.At
	}
	writeJSON(w, http.StatusOK, out)
}
