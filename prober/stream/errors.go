package stream

import (
	"errors"
	"fmt"
)

// Kind is what went wrong with a stream, for the caller's own taxonomy.
type Kind int

const (
	// Malformed: a chunk that is not valid JSON.
	Malformed Kind = iota + 1
	// ServerError: the server reported an error inside the stream.
	ServerError
	// InvalidUsage: usage token counts outside [0, MaxUsageTokens].
	InvalidUsage
	// LimitExceeded: an event past MaxLineBytes.
	LimitExceeded
)

// Error is a failure of the stream, of one Kind. Its message is Err's.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func failed(k Kind, err error) error { return &Error{Kind: k, Err: err} }

// ErrLineTooLong is what Reader.Next returns for an event or line longer
// than MaxLineBytes.
var ErrLineTooLong = failed(LimitExceeded, fmt.Errorf("SSE event longer than %d bytes", MaxLineBytes))

// KindOf returns the Kind of err, or 0 if err is no stream Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}
