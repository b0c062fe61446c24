package mockvllm

import (
	"slices"
	"sync"
	"time"
)

// ChunkKind says what one write to the wire carried.
type ChunkKind string

const (
	KindRole      ChunkKind = "role"      // chat role chunk, no content
	KindContent   ChunkKind = "content"   // generated tokens
	KindFinish    ChunkKind = "finish"    // finish_reason chunk with empty delta/text
	KindUsage     ChunkKind = "usage"     // choices:[] usage chunk
	KindError     ChunkKind = "error"     // in-stream {"error":...} event
	KindMalformed ChunkKind = "malformed" // invalid JSON event
	KindDone      ChunkKind = "done"      // data: [DONE]
	KindBody      ChunkKind = "body"      // whole non-streaming JSON body
)

// Chunk is one write to the wire.
type Chunk struct {
	// At is taken immediately BEFORE the write, so a client can only
	// receive the data later than At.
	At time.Time
	// Sent is taken immediately AFTER the write and flush returned, so
	// the kernel had the bytes by then. [At, Sent] brackets the true send
	// time: on a loaded machine (or over TLS, which encrypts in between)
	// the writer can be descheduled inside it, which is the server's
	// delay, not the client's error.
	Sent time.Time
	Kind ChunkKind
	// Tokens is the number of newly generated tokens carried.
	Tokens int
	// Content reports whether the event carried non-empty generated text.
	Content bool
}

// Trace holds the true timings of one request. Times use the local
// monotonic clock (time.Now), so they compare directly with a client's.
type Trace struct {
	ID       string
	Endpoint string // "chat" or "completions"
	Stream   bool
	Fault    Fault
	Status   int // HTTP status sent; 0 if none was

	Arrival time.Time // handler entry
	// Scheduled is when the engine first admitted the request (zero if
	// never); Scheduled-Arrival is the queue time.
	Scheduled time.Time
	// FirstToken is when the engine produced its first output.
	FirstToken time.Time
	// HeadersWritten is taken immediately before the headers were written.
	HeadersWritten time.Time
	Chunks         []Chunk
	// End is taken immediately before the last write (or the close).
	End time.Time

	// FinishReason is stop, length, error or abort; "" if rejected
	// before the engine.
	FinishReason     string
	PromptTokens     int
	CachedTokens     int
	CompletionTokens int
	Preemptions      int
	// Stall is the decode stall injected into this request (DecodeStall);
	// 0 if none was due. It was served only if the output passed the
	// stall token.
	Stall time.Duration
}

// traceStore keeps the most recent traces in a ring so a long demo does
// not grow without bound.
type traceStore struct {
	mu   sync.Mutex
	ring []*Trace
	next int
	byID map[string]*Trace
}

func newTraceStore(capacity int) *traceStore {
	return &traceStore{ring: make([]*Trace, capacity), byID: make(map[string]*Trace, capacity)}
}

// put stores t, which must not be modified afterwards but through sent.
func (ts *traceStore) put(t *Trace) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if old := ts.ring[ts.next]; old != nil && ts.byID[old.ID] == old {
		delete(ts.byID, old.ID)
	}
	ts.ring[ts.next] = t
	ts.next = (ts.next + 1) % len(ts.ring)
	ts.byID[t.ID] = t
}

func (ts *traceStore) get(id string) (Trace, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.byID[id]
	if !ok {
		return Trace{}, false
	}
	c := *t
	c.Chunks = slices.Clone(t.Chunks)
	return c, true
}

// sent stamps the last chunk of a published trace: [DONE] is written
// after publishing (a client that read it may ask for the trace at once).
func (ts *traceStore) sent(t *Trace, at time.Time) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t.Chunks[len(t.Chunks)-1].Sent = at
}
