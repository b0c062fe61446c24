package bench

import (
	"context"
	"errors"
	"strings"
)

// badFile marks an error as the fault of a file a flag names (a trace,
// dataset, workload or --config.file that cannot be read or does not
// parse, or flags naming the target that do not fit together): bad input,
// exit 2 like a bad flag, though found only once the file is read.
type badFile struct{ error }

func (e badFile) Unwrap() error { return e.error }

// fileError marks err, returned while reading the file at path, as a bad
// file when it is about the file: the readers name it first ("path:line:
// …", "cannot read path: …", "path is not a regular file"). A tokenizer
// call failing meanwhile names the server instead, and an interrupt is
// no fault of the file; both stay run errors.
func fileError(ctx context.Context, err error, path string) error {
	if err == nil || ctx.Err() != nil || path == "" {
		return err
	}
	if msg := err.Error(); strings.HasPrefix(msg, path) || strings.HasPrefix(msg, "cannot read "+path) {
		return badFile{err}
	}
	return err
}

// exitFor is the exit code of an error that ends a run before it starts.
func exitFor(err error) int {
	if errors.As(err, new(badFile)) {
		return ExitBadInput
	}
	return ExitError
}
