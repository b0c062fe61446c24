package resultfile

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/llm-prober/llm-prober/internal/safefile"
)

// ReadKey reads one aggregate key of a result file, stopping there: bench
// writes the aggregate before the requests, so finding a shard's
// manifest costs its head, not its records. A key after the requests is
// still found (every request skipped one at a time); a file without it
// gives nil. Caps and deadline as ReadRecords.
func ReadKey(ctx context.Context, path, key string) (json.RawMessage, error) {
	f, err := safefile.Open(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	raw, err := readKey(json.NewDecoder(bufio.NewReaderSize(f, 64<<10)), key)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return raw, nil
}

func readKey(dec *json.Decoder, want string) (json.RawMessage, error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a bench --output-json file (want a JSON object)")
	}
	headBytes := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		switch {
		case k == "points" || k == "num_runs":
			return nil, errors.New("a sweep's or --num-runs summary file: merge single runs' shard files")
		case k == "requests" || spoolKey(k):
			err = skipArray(dec)
		default:
			var raw json.RawMessage
			if err = dec.Decode(&raw); err == nil {
				headBytes += len(raw)
				if len(raw) > MaxHeadKey || headBytes > maxHead {
					return nil, fmt.Errorf("%s: the aggregate keys pass %d MiB", k, maxHead>>20)
				}
				if k == want {
					return raw, nil
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil, nil
}
