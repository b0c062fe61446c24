package prober

import (
	"errors"
	"fmt"

	"github.com/llm-prober/llm-prober/prober/rxstamp"
	"github.com/llm-prober/llm-prober/prober/stream"
)

// Fixed caps on what one probe keeps, whatever the server sends: a probe
// that reaches one fails with ReasonLimitExceeded instead of growing.
// Together they bound a probe's memory to about 3 MiB (two event-sized
// buffers, the ITL gaps and the answer), far above what a probe with a
// sensible max_tokens needs. docs/reliability.md lists them.
const (
	// MaxLineBytes bounds one SSE line and one event's data.
	MaxLineBytes = stream.MaxLineBytes
	// MaxContentChunks bounds the content chunks of one stream, and so
	// its ITL gaps: a server that streams past max_tokens forever is cut
	// here.
	MaxContentChunks = 1 << 16
	// MaxOutputBytes bounds the generated text kept for validators and debug.
	MaxOutputBytes = stream.MaxOutputBytes
	// MaxUsageTokens bounds each token count of a usage object (prompt,
	// completion, cached): 16 Mi tokens, above any model's context window.
	// A count outside [0, MaxUsageTokens] fails the probe with
	// ReasonInvalidUsage and never reaches the token counters.
	MaxUsageTokens = stream.MaxUsageTokens
	// MaxResponseHeaderBytes bounds the response headers (net/http reads
	// up to 10 MB by default). Counted on the connection, from when the
	// request has it to when its headers are parsed, with headerSlack more
	// for TLS records and read-ahead that may hold the body's start.
	MaxResponseHeaderBytes = 64 << 10
	headerSlack            = 32 << 10
)

// dialRx dials TCP with kernel receive timestamps (nil where the OS has
// none), with the cap on response headers counted on the connection.
var dialRx = rxstamp.Dialer(MaxResponseHeaderBytes+headerSlack, errHeadersTooLarge)

// streamKinds maps the stream's failures onto the taxonomy.
var streamKinds = map[stream.Kind]Reason{
	stream.Malformed:     ReasonMalformedChunk,
	stream.ServerError:   ReasonStreamError,
	stream.InvalidUsage:  ReasonInvalidUsage,
	stream.LimitExceeded: ReasonLimitExceeded,
}

// streamFailure classifies an error of package stream, with its message.
func streamFailure(err error) error {
	var e *stream.Error
	if errors.As(err, &e) {
		return fail(streamKinds[e.Kind], e.Err)
	}
	return err
}

var (
	errHeadersTooLarge = fail(ReasonLimitExceeded, fmt.Errorf("response headers longer than %d bytes", MaxResponseHeaderBytes))
	errLineTooLong     = fail(ReasonLimitExceeded, stream.ErrLineTooLong)
	errTooManyChunks   = fail(ReasonLimitExceeded, fmt.Errorf("more than %d content chunks (the server streams past any max_tokens)", MaxContentChunks))
)
