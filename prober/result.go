package prober

import (
	"time"

	"github.com/llm-prober/llm-prober/prober/rxstamp"
)

// Result is everything one probe measured. Durations are measured from the
// moment the request was handed to the HTTP client.
type Result struct {
	ID     string
	Trace  TraceContext // sent as traceparent; the exemplars' trace_id
	Target string
	Model  string
	Module string
	Start  time.Time
	Phases Phases // connection steps, for the exported span

	HTTPStatus int
	Headers    time.Duration // time to response headers
	TTFT       time.Duration // time to the first chunk with generated output
	HasTTFT    bool
	ITL        []time.Duration // per-token gaps after the first token
	TPOT       time.Duration   // (E2EL − TTFT)/(OutputTokens − 1); 0 if ≤ 1 token
	// MaxITL is the longest of the ITL gaps (0 with fewer than two
	// content chunks); LastChunk the arrival of the last content chunk,
	// from which a timeout while decoding has its open gap.
	MaxITL    time.Duration
	LastChunk time.Duration
	E2EL      time.Duration // time to the end of the stream

	OutputTokens  int
	PromptTokens  int
	CachedTokens  int
	UsageReported bool // token counts came from the server's usage
	ContentChunks int
	FinishReason  string
	Output        string // generated answer, at most MaxOutputBytes
	// KernelTimes: chunk arrivals are the kernel's receive times (Linux,
	// HTTP/1.1); else the reader's clock (HTTP/2, other systems).
	KernelTimes bool

	Reason Reason // ReasonNone on success
	Err    error

	// Filled in by Evaluate for successful probes.
	SLOViolations      []string // "ttft", "tpot", "e2el", "max_itl"
	ValidationFailures []string // validator names
	Good               bool     // succeeded and met every configured SLO
	// Warmup is set (server_restart, failure_streak) for a probe of the
	// warm-up after a target restart: if it succeeded, its latencies are
	// kept out of the SLO series; a failure counts as any other.
	Warmup string
	// WarmupUntil is when the warm-up open after this probe ends (more of
	// the next probes may be warm-up); zero when none is open.
	WarmupUntil time.Time

	// Prefill: the cache mode and prompt sizing of a module with cache
	// cold or paired or with prompt_tokens (cache.go); nil otherwise.
	Prefill *PrefillResult

	trace func(msg string, keyvals ...any) // RunOptions.Trace, may be nil
	close bool                             // RunOptions.CloseConnection
	conn  *rxstamp.Conn                    // the connection, if it has kernel receive times
	// connected: the client got a connection (dialled, TLS done, or reused).
	connected bool
}

// elapsed is the time from sending the request to the arrival of the data
// read last: the kernel's receive time where the connection has one.
func (r *Result) elapsed() time.Duration {
	now := time.Now()
	if r.conn != nil {
		now = r.conn.ArrivedBy(now)
	}
	return max(now.Sub(r.Start), 0)
}

// Success reports whether the probe produced a complete, valid stream.
func (r *Result) Success() bool { return r.Reason == ReasonNone }

// summary is r without what only the probe itself needs (the per-token
// gaps, the answer, the connection, the trace), for keeping after it.
func (r *Result) summary() *Result {
	s := *r
	s.ITL, s.Output, s.trace, s.conn = nil, "", nil, nil
	return &s
}
