package workload

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llm-prober/llm-prober/internal/safefile"
)

// Trace limits: a line, a request's lengths. A recorded trace is data
// from elsewhere: a corrupt one must fail with its line, not exhaust
// memory building a billion-token prompt.
const (
	maxTraceLine   = 1 << 20
	maxTraceTokens = 1 << 22
	// DefaultTraceBlockSize is Mooncake's: each hash id is 512 tokens.
	DefaultTraceBlockSize = 512
	// MaxReplay is the longest a replay may last (timestamps times the
	// scale): beyond it a timestamp is a corrupt one, and past 292 years
	// the offset overflowed into a negative wait.
	MaxReplay = 366 * 24 * time.Hour
	// MinTraceScale and MaxTraceScale bound --trace-time-scale.
	MinTraceScale = 1e-6
	MaxTraceScale = 1e6
)

// Element caps of a trace: BurstGPT's largest file has 1.4 million rows
// and Mooncake's 23,608 requests with 330,000 hash ids; at 24 bytes an
// entry and 8 a hash id these hold a trace in under 100 MiB. Variables:
// tests lower them.
var (
	maxTraceRequests = 4_000_000
	maxTraceHashIDs  = 8_000_000
)

// Trace replays a recorded workload: each request sent at its
// timestamp (relative to the first, times Scale), with its lengths; its
// prompt built from one block of BlockSize tokens per hash id, so that
// requests share a prefix exactly as far as their leading hash ids agree
// (Mooncake's format). A trace without hash ids (BurstGPT) shares none.
type Trace struct {
	Name      string
	Scale     float64
	BlockSize int
	Seed      int64
	// Tok sizes blocks in the server's tokens; nil: one token a word.
	Tok *Sizing
	// Skipped counts rows left out: BurstGPT's failed requests (0 tokens).
	Skipped int

	store *traceStore
	cache *blockCache
}

// TraceOptions read a trace.
type TraceOptions struct {
	Scale     float64 // 0.5 replays twice as fast; 0 means 1
	BlockSize int     // tokens per hash id; 0 means DefaultTraceBlockSize
	Seed      int64
	Tok       *Sizing
}

// LoadTrace reads a Mooncake-style JSONL trace ({"timestamp": ms,
// "input_length", "output_length", "hash_ids"} a line) or a
// BurstGPT-style CSV (Timestamp in s, Request tokens, Response tokens; a
// .csv file or one whose header starts with Timestamp).
func LoadTrace(path string, o TraceOptions) (*Trace, error) {
	// Streamed line by line: the element caps bound memory, not bytes.
	f, err := safefile.Open(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readTrace(f, path, o)
}

func readTrace(r io.Reader, name string, o TraceOptions) (*Trace, error) {
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.BlockSize == 0 {
		o.BlockSize = DefaultTraceBlockSize
	}
	switch {
	case !(o.Scale >= MinTraceScale && o.Scale <= MaxTraceScale):
		return nil, fmt.Errorf("--trace-time-scale %g must be in [%g, %g] (0.5: twice as fast)", o.Scale, MinTraceScale, MaxTraceScale)
	case o.BlockSize < 1 || o.BlockSize > maxTraceTokens:
		return nil, fmt.Errorf("--trace-block-size %d must be in [1, %d]", o.BlockSize, maxTraceTokens)
	}
	t := &Trace{Name: name, Scale: o.Scale, BlockSize: o.BlockSize, Seed: o.Seed, Tok: o.Tok, cache: newBlockCache(), store: &traceStore{}}
	st := t.store
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxTraceLine)
	// Each line is parsed in place, with no allocation kept or left
	// behind: garbage would let the heap grow to twice what is held.
	var parse func(line []byte) (ms float64, in, out int64, ids []int64, skip bool, err error)
	var first, prev float64
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff")) // a byte-order mark (spreadsheets write one)
		}
		if len(text) == 0 {
			continue
		}
		if parse == nil {
			if strings.HasSuffix(strings.ToLower(name), ".csv") || bytes.HasPrefix(text, []byte("Timestamp")) {
				p, err := burstGPT(string(text))
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", name, line, err)
				}
				parse = p
				continue
			}
			parse = newMooncake()
		}
		ms, in, out, ids, skip, err := parse(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if skip {
			t.Skipped++
			continue
		}
		switch {
		case math.IsNaN(ms) || math.IsInf(ms, 0):
			return nil, fmt.Errorf("%s:%d: the timestamp is not a finite number", name, line)
		case st.len() > 0 && ms < prev:
			return nil, fmt.Errorf("%s:%d: timestamp %g is before the previous request's %g: a trace must be in time order", name, line, ms, prev)
		case in < 1 || out < 1 || in > maxTraceTokens || out > maxTraceTokens:
			return nil, fmt.Errorf("%s:%d: input length %d and output length %d must be in [1, %d] tokens", name, line, in, out, maxTraceTokens)
		case len(ids) > maxTraceTokens:
			return nil, fmt.Errorf("%s:%d: %d hash ids", name, line, len(ids))
		case st.len() >= maxTraceRequests:
			return nil, fmt.Errorf("%s:%d: more than %d requests: a trace may hold at most that many; cut it", name, line, maxTraceRequests)
		case st.ids.n+len(ids) > maxTraceHashIDs:
			return nil, fmt.Errorf("%s:%d: more than %d hash ids in all: a trace may hold at most that many; cut it", name, line, maxTraceHashIDs)
		}
		if st.len() == 0 {
			first = ms
		}
		prev = ms
		off := (ms - first) * o.Scale * float64(time.Millisecond)
		if !(off <= float64(MaxReplay)) {
			return nil, fmt.Errorf("%s:%d: timestamp %g is %.4g s after the first request's %g (× --trace-time-scale %g): a replay may last at most %s",
				name, line, ms, off/1e9, first, o.Scale, MaxReplay)
		}
		st.add(int64(off), in, out, ids, line)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d bytes", name, line+1, maxTraceLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if st.len() == 0 {
		return nil, fmt.Errorf("%s: no requests in the trace", name)
	}
	return t, nil
}

// burstGPT reads a BurstGPT header and returns the parser of its rows:
// Timestamp in s, rows with 0 tokens (its failed requests) skipped.
func burstGPT(header string) (func([]byte) (float64, int64, int64, []int64, bool, error), error) {
	cols, err := csvRow(header)
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[strings.TrimSpace(c)] = i
	}
	var at [3]int
	for k, name := range []string{"Timestamp", "Request tokens", "Response tokens"} {
		i, ok := idx[name]
		if !ok {
			return nil, fmt.Errorf("no %q column in the header (BurstGPT's: Timestamp, Model, Request tokens, Response tokens, …)", name)
		}
		at[k] = i
	}
	row := make([]string, 0, len(cols))
	return func(text []byte) (float64, int64, int64, []int64, bool, error) {
		row, err := csvFields(row[:0], text)
		if err != nil {
			return 0, 0, 0, nil, false, err
		}
		if len(row) != len(cols) {
			return 0, 0, 0, nil, false, fmt.Errorf("%d fields, the header has %d", len(row), len(cols))
		}
		s, err := strconv.ParseFloat(strings.TrimSpace(row[at[0]]), 64)
		if err != nil {
			return 0, 0, 0, nil, false, fmt.Errorf("the Timestamp %q is not a number", row[at[0]])
		}
		var n [2]int64
		for k, c := range at[1:] {
			if n[k], err = strconv.ParseInt(strings.TrimSpace(row[c]), 10, 64); err != nil {
				return 0, 0, 0, nil, false, fmt.Errorf("%s %q is not a whole number", cols[c], row[c])
			}
		}
		if n[0] < 0 || n[1] < 0 {
			return 0, 0, 0, nil, false, fmt.Errorf("negative token counts (%d, %d)", n[0], n[1])
		}
		return s * 1e3, n[0], n[1], nil, n[0] == 0 || n[1] == 0, nil
	}, nil
}

// csvFields splits a row without quotes in place into dst (a row with
// quotes goes through encoding/csv), so that a plain row allocates only
// what the caller keeps: its fields' strings are converted as parsed.
func csvFields(dst []string, line []byte) ([]string, error) {
	if bytes.IndexByte(line, '"') >= 0 {
		return csvRow(string(line))
	}
	for {
		i := bytes.IndexByte(line, ',')
		if i < 0 {
			return append(dst, unsafeString(line)), nil
		}
		dst = append(dst, unsafeString(line[:i]))
		line = line[i+1:]
	}
}

func csvRow(line string) ([]string, error) {
	r := csv.NewReader(strings.NewReader(line))
	r.FieldsPerRecord = -1
	row, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("not a CSV row: %w", err)
	}
	return row, nil
}

// CheckContext refuses a trace whose requests cannot fit a server's
// context of limit tokens (overhead: what the server adds to a prompt),
// naming the first such line and how many there are: they would fail
// there, and a trace recorded on a longer context must be cut for it.
func (t *Trace) CheckContext(limit, overhead int, source string) error {
	if limit <= 0 {
		return nil
	}
	n, first := 0, -1
	firstLine := 0
	t.store.lines(func(i, line int) bool {
		if e := t.store.entry(i); int(e.in)+int(e.out)+overhead > limit {
			n++
			if first < 0 {
				first, firstLine = i, line
			}
		}
		return true
	})
	if n == 0 {
		return nil
	}
	e := t.store.entry(first)
	return fmt.Errorf("%s:%d: input %d + output %d tokens (and %d the server adds) exceed the server's context of %d tokens (%s); %d of the trace's %d requests do: cut them from the trace, or give the server a larger context",
		t.Name, firstLine, e.in, e.out, overhead, limit, source, n, t.Len())
}

// Len is the number of requests in the trace.
func (t *Trace) Len() int { return t.store.len() }

// At is request i's send time from the first, scaled.
func (t *Trace) At(i int) time.Duration { return time.Duration(get56(t.store.recs.at(i).at)) }

// Item builds request i: its hash ids' blocks, cut at its input length,
// then words of its own for any tokens past them.
func (t *Trace) Item(i int) Item {
	e := t.store.entry(i % t.Len())
	var b strings.Builder
	b.Grow(int(e.in) * 8)
	left := int(e.in)
	for k := range e.nid {
		h := t.store.ids.at(e.id0 + k)
		if left <= 0 {
			break
		}
		n := min(left, t.BlockSize)
		block := t.block(h)
		if n < t.BlockSize {
			block = firstWords(block, t.Tok.words(n))
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(block)
		left -= n
	}
	if left > 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.words(itemRand(t.Seed, i), t.Tok.words(left)))
	}
	return Item{Prompt: b.String(), PromptTokens: int(e.in), OutputTokens: int(e.out)}
}

// maxBlockCache bounds the text of blocks kept for reuse: drawing a
// 7,000-token prompt word by word costs ~0.2 ms of CPU, at 1,000 req/s a
// core; a trace's blocks repeat (that is its point), so most are copies.
const maxBlockCache = 64 << 20

// blockCache keeps the text of hash ids' blocks, first come first kept.
type blockCache struct {
	mu    sync.Mutex
	text  map[int64]string
	bytes int
}

// block is hash id h's whole block: BlockSize tokens of words drawn by a
// generator seeded with the run's seed and h alone.
func (t *Trace) block(h int64) string {
	c := t.cache
	c.mu.Lock()
	s, ok := c.text[h]
	c.mu.Unlock()
	if ok {
		return s
	}
	s = t.words(rand.New(rand.NewPCG(uint64(t.Seed), uint64(h)^0x74726163652d6964)), t.Tok.words(t.BlockSize))
	c.mu.Lock()
	if c.bytes+len(s) <= maxBlockCache {
		if _, dup := c.text[h]; !dup {
			c.text[h] = s
			c.bytes += len(s)
		}
	}
	c.mu.Unlock()
	return s
}

// firstWords is s's first n words: a cut block is a prefix of the whole.
func firstWords(s string, n int) string {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			if n--; n == 0 {
				return s[:i]
			}
		}
	}
	return s
}

// words is n vocabulary words drawn by rng, as synthetic prompts are.
func (t *Trace) words(rng *rand.Rand, n int) string {
	return (&Synthetic{Tok: t.Tok}).words(rng, n)
}

// Describe names the workload.
func (t *Trace) Describe() string {
	d := fmt.Sprintf("trace %s (%d requests over %.1f s", filepath.Base(t.Name), t.Len(), t.At(t.Len()-1).Seconds())
	if t.Scale != 1 {
		d += fmt.Sprintf(", time ×%g", t.Scale)
	}
	if t.store.ids.n > 0 {
		d += fmt.Sprintf(", %d-token blocks per hash id", t.BlockSize)
	}
	if t.Skipped > 0 {
		d += fmt.Sprintf(", %d rows with 0 tokens skipped", t.Skipped)
	}
	return d + ")"
}

// WithSeed is t drawing its blocks with another seed (--fresh-prompts: a
// new set of prefixes, shared within the run as the trace says).
func (t *Trace) WithSeed(seed int64) Workload {
	c := *t
	c.Seed, c.cache = seed, newBlockCache()
	return &c
}

func newBlockCache() *blockCache { return &blockCache{text: map[int64]string{}} }
