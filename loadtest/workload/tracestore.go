package workload

import (
	"math"
	"unsafe"
)

// A trace may hold millions of requests: each is kept in 14 bytes (its
// send time, lengths and line) in chunks that are filled, never copied to grow,
// so that a trace at the 4,000,000-request cap holds 56 MB and no more; its hash
// ids, when it has any, cost 4 bytes a request and 8 an id besides.
const traceChunk = 1 << 16

// chunks is a column of values in fixed-size chunks: appending never
// copies what was kept, so the peak is what is held, not twice it.
type chunks[T any] struct {
	c [][]T
	n int
}

func (s *chunks[T]) add(v T) {
	if s.n%traceChunk == 0 {
		s.c = append(s.c, make([]T, 0, min(traceChunk, max(64, s.n))))
	}
	last := &s.c[len(s.c)-1]
	if len(*last) == cap(*last) { // only the first chunk, doubled: append's 1.25× would pass 5× its size
		grown := make([]T, len(*last), 2*cap(*last))
		copy(grown, *last)
		*last = grown
	}
	*last = append(*last, v)
	s.n++
}

func (s *chunks[T]) at(i int) T { return s.c[i/traceChunk][i%traceChunk] }

// traceRec is one request: its send time from the first in ns (scaled;
// < 2^56: MaxReplay is 2^55), its input and output lengths (each < 2^24:
// maxTraceTokens is 2^22), and the lines from the previous request's
// (saturated; farther ones in far). Bytes, so that it packs in 14.
type traceRec struct {
	at      [7]byte
	in, out [3]byte
	dline   uint8
}

func put56(v int64) (b [7]byte) {
	for k := range b {
		b[k] = byte(v >> (8 * k))
	}
	return b
}

func get56(b [7]byte) (v int64) {
	for k := range b {
		v |= int64(b[k]) << (8 * k)
	}
	return v
}

func put24(v int64) [3]byte { return [3]byte{byte(v), byte(v >> 8), byte(v >> 16)} }

func get24(b [3]byte) int32 { return int32(b[0]) | int32(b[1])<<8 | int32(b[2])<<16 }

// traceEntry is a request as the trace's users see it.
type traceEntry struct {
	at       int64
	in, out  int32
	id0, nid int
}

// traceStore holds a trace's requests and hash ids.
type traceStore struct {
	recs   chunks[traceRec]
	idEnd  chunks[uint32] // request i's hash ids end at idEnd[i]; empty when the trace has none
	ids    chunks[int64]
	far    map[int]int // line deltas of 255 or more, by request
	last   int         // the last request's line
	hasIDs bool
}

// add appends a request read at line with its hash ids (already checked
// against the caps).
func (t *traceStore) add(at int64, in, out int64, ids []int64, line int) {
	d := line - t.last
	t.last = line
	r := traceRec{at: put56(at), in: put24(in), out: put24(out), dline: uint8(min(d, math.MaxUint8))}
	if d >= math.MaxUint8 {
		if t.far == nil {
			t.far = map[int]int{}
		}
		t.far[t.recs.n] = d
	}
	if len(ids) > 0 && !t.hasIDs {
		t.hasIDs = true
		for range t.recs.n { // the requests before had none
			t.idEnd.add(0)
		}
	}
	t.recs.add(r)
	for _, h := range ids {
		t.ids.add(h)
	}
	if t.hasIDs {
		t.idEnd.add(uint32(t.ids.n))
	}
}

func (t *traceStore) len() int { return t.recs.n }

func (t *traceStore) entry(i int) traceEntry {
	r := t.recs.at(i)
	e := traceEntry{at: get56(r.at), in: get24(r.in), out: get24(r.out)}
	if t.hasIDs {
		end := int(t.idEnd.at(i))
		if i > 0 {
			e.id0 = int(t.idEnd.at(i - 1))
		}
		e.nid = end - e.id0
	}
	return e
}

// lines calls f with each request's index and line, in order.
func (t *traceStore) lines(f func(i, line int) bool) {
	line := 0
	for i := range t.recs.n {
		d := int(t.recs.at(i).dline)
		if d == math.MaxUint8 {
			d = t.far[i]
		}
		line += d
		if !f(i, line) {
			return
		}
	}
}

// unsafeString is b as a string without a copy, for a field parsed
// before the line's buffer is reused (strconv's errors copy what they
// quote): a copy a field would be garbage a row.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
