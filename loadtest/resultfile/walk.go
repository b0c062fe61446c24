package resultfile

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/llm-prober/llm-prober/internal/safefile"
)

// decodeFile opens path within safefile's checks and hands it to read,
// buffered by bufSize: ctx ends a stall (a FIFO-like file) by closing
// the file, and an error names the path (and ctx's error when it ended
// the read).
func decodeFile(ctx context.Context, path string, bufSize int, read func(io.Reader) error) error {
	f, err := safefile.Open(path, math.MaxInt64)
	if err != nil {
		return err
	}
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	if err := read(bufio.NewReaderSize(f, bufSize)); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// walkRun walks the top level of a single run's result file (ReadKey and
// ReadRecords share it, so both refuse and cap alike): it refuses a
// sweep's or --num-runs summary, skips the spooled arrays, hands
// "requests" to requests (skipped where requests is nil), and every
// other key's value, each within MaxHeadKey and all within maxHead, to
// head, which ends the walk early by returning true.
func walkRun(dec *json.Decoder, requests func() error, head func(key string, raw json.RawMessage) (done bool)) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("not a bench --output-json file (want a JSON object)")
	}
	headBytes := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		switch {
		case key == "points" || key == "num_runs":
			return errors.New("a sweep's or --num-runs summary file: merge single runs' shard files")
		case key == "requests" && requests != nil:
			err = requests()
		case key == "requests" || spoolKey(key):
			err = skipArray(dec)
		default:
			var raw json.RawMessage
			if err = dec.Decode(&raw); err == nil {
				headBytes += len(raw)
				if len(raw) > MaxHeadKey || headBytes > maxHead {
					return fmt.Errorf("%s: the aggregate keys pass %d MiB", key, maxHead>>20)
				}
				if head(key, raw) {
					return nil
				}
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	return nil
}
