package workload

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Dataset caps: a ShareGPT or JSONL dataset is read element by element,
// never whole. One element (a conversation, a line) may hold up to
// maxDatasetElement bytes; all of them together maxDatasetText bytes of
// text (ShareGPT_V3's 94,000 conversations hold about 600 MB) in at most
// maxDatasetEntries elements. Variables: tests lower them.
var (
	maxDatasetElement = 16 << 20
	maxDatasetText    = 1 << 30
	maxDatasetEntries = 5_000_000
)

// decodeShareGPT decodes a ShareGPT array one conversation at a time.
func decodeShareGPT(r io.Reader) ([]shareGPTEntry, error) {
	er := &elementReader{r: bufio.NewReaderSize(r, 256<<10)}
	dec := json.NewDecoder(er)
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, errors.New("not a ShareGPT JSON array (want [ {\"conversations\": [...]}, ... ])")
	}
	var entries []shareGPTEntry
	text := 0
	for dec.More() {
		if len(entries) >= maxDatasetEntries {
			return nil, fmt.Errorf("more than %d conversations: a dataset may hold at most that many", maxDatasetEntries)
		}
		er.mark = dec.InputOffset()
		var e shareGPTEntry
		if err := dec.Decode(&e); err != nil {
			if errors.Is(err, errElementTooLong) {
				return nil, fmt.Errorf("conversation %d: %w", len(entries)+1, err)
			}
			return nil, fmt.Errorf("not a ShareGPT JSON array: conversation %d: %w", len(entries)+1, err)
		}
		for _, c := range e.Conversations {
			text += len(c.Value)
		}
		if text > maxDatasetText {
			return nil, fmt.Errorf("more than %d MiB of text by conversation %d: a dataset may hold at most that much", maxDatasetText>>20, len(entries)+1)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

var errElementTooLong = fmt.Errorf("longer than the element cap")

// elementReader fails once the decoder has read more than
// maxDatasetElement bytes past the start of the element it decodes:
// json.Decoder buffers a whole value before decoding it.
type elementReader struct {
	r    io.Reader
	read int64 // bytes handed to the decoder
	mark int64 // the decoder's offset at the current element's start
}

func (e *elementReader) Read(p []byte) (int, error) {
	if e.read-e.mark > int64(maxDatasetElement) {
		return 0, fmt.Errorf("%w: over %d bytes", errElementTooLong, maxDatasetElement)
	}
	n, err := e.r.Read(p)
	e.read += int64(n)
	return n, err
}
