package workload

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/llm-prober/llm-prober/internal/jsonscan"
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

// decodeShareGPT reads a ShareGPT array one conversation at a time with
// a streaming scanner that keeps only the strings it returns, each read
// under what is left of its conversation's byte cap: a 100 MB prompt is
// refused at the cap, never held whole (json.Decoder buffered a whole
// conversation before decoding it, +101 MiB for one of 100 MB).
func decodeShareGPT(r io.Reader) ([]shareGPTEntry, error) {
	s := jsonscan.New(r, math.MaxInt64)
	if c, err := s.NonSpace(); err != nil || c != '[' {
		return nil, errors.New("not a ShareGPT JSON array (want [ {\"conversations\": [...]}, ... ])")
	}
	var entries []shareGPTEntry
	text := 0
	var start int64 // the current conversation's first byte
	var buf []byte
	over := func() error {
		return fmt.Errorf("conversation %d: %w: over %d bytes", len(entries)+1, errElementTooLong, maxDatasetElement)
	}
	// str reads a string value (or null) within the conversation's cap.
	str := func(c byte) (string, error) {
		switch c {
		case 'n':
			return "", s.Skip(c)
		case '"':
		default:
			return "", s.Syntax("want a string, got %q", c)
		}
		var err error
		buf, err = s.AppendStrMax(buf[:0], int(int64(maxDatasetElement)-(s.Offset()-start)))
		if errors.Is(err, jsonscan.ErrLong) {
			return "", over()
		}
		return validUTF8(buf), err
	}
	var e shareGPTEntry
	turn := func(_ int, c byte) error {
		switch {
		case c != '{':
			return s.Syntax("want a turn {\"from\": ..., \"value\": ...}, got %q", c)
		case len(e.Conversations) >= maxDatasetElement/64: // a turn of "{}" costs 2 bytes read, 32 held
			return fmt.Errorf("conversation %d: more than %d turns", len(entries)+1, maxDatasetElement/64)
		}
		var from, value string
		err := s.Object(func(key string, c byte) (err error) {
			switch {
			case strings.EqualFold(key, "from"):
				from, err = str(c)
			case strings.EqualFold(key, "value"):
				value, err = str(c)
			default:
				err = s.Skip(c)
			}
			return err
		})
		e.Conversations = append(e.Conversations, struct {
			From  string `json:"from"`
			Value string `json:"value"`
		}{from, value})
		return err
	}
	conversation := func(key string, c byte) error {
		if !strings.EqualFold(key, "conversations") {
			return s.Skip(c)
		}
		e.Conversations = nil // a repeated key: the last wins, as in encoding/json
		switch {
		case c == 'n':
			return s.Skip(c)
		case c != '[':
			return s.Syntax("want \"conversations\" as an array, got %q", c)
		}
		return s.Array(turn)
	}
	err := s.Array(func(_ int, c byte) error {
		if len(entries) >= maxDatasetEntries {
			return fmt.Errorf("more than %d conversations: a dataset may hold at most that many", maxDatasetEntries)
		}
		if c != '{' {
			return s.Syntax("conversation %d is not an object", len(entries)+1)
		}
		start, e = s.Offset()-1, shareGPTEntry{}
		if err := s.Object(func(key string, c byte) error {
			if err := conversation(key, c); err != nil {
				return err
			}
			if s.Offset()-start > int64(maxDatasetElement) { // a skipped value past the cap
				return over()
			}
			return nil
		}); err != nil {
			return err
		}
		for _, c := range e.Conversations {
			text += len(c.Value)
		}
		if text > maxDatasetText {
			return fmt.Errorf("more than %d MiB of text by conversation %d: a dataset may hold at most that much", maxDatasetText>>20, len(entries)+1)
		}
		entries = append(entries, e)
		return nil
	})
	var syn *jsonscan.SyntaxError
	switch {
	case errors.As(err, &syn):
		return nil, fmt.Errorf("not a ShareGPT JSON array: line %d: conversation %d: %s", syn.Line, len(entries)+1, syn.Msg)
	case errors.Is(err, jsonscan.ErrEnd):
		return nil, fmt.Errorf("not a ShareGPT JSON array: it ends inside conversation %d", len(entries)+1)
	}
	return entries, err
}

// validUTF8 is b with each byte of an invalid sequence replaced by
// U+FFFD, as encoding/json did (strings.ToValidUTF8 folds a run into one).
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			sb.WriteString("\uFFFD")
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}

var errElementTooLong = fmt.Errorf("longer than the element cap")
