package resultfile

import (
	"context"
	"encoding/json"
	"io"
)

// ReadKey reads one aggregate key of a result file, stopping there: bench
// writes the aggregate before the requests, so finding a shard's
// manifest costs its head, not its records. A key after the requests is
// still found (every request skipped one at a time); a file without it
// gives nil. Caps and deadline as ReadRecords.
func ReadKey(ctx context.Context, path, key string) (json.RawMessage, error) {
	var raw json.RawMessage
	err := decodeFile(ctx, path, 64<<10, func(r io.Reader) error {
		return walkRun(json.NewDecoder(r), nil, func(k string, v json.RawMessage) bool {
			if k == key {
				raw = v
			}
			return k == key
		})
	})
	if err != nil {
		return nil, err
	}
	return raw, nil
}
