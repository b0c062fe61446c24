package loadtest

import "encoding/binary"

// blocks is an append-only list of int64 (token arrival times) kept as
// varint differences from the previous value in fixed-size byte blocks.
// Fixed blocks grow without the copies of a doubling slice, whose old and
// new arrays are both live while it grows (at 1.3 M token times: 10 MB
// live, up to 23 MB while growing, during the run when the streams need
// the memory). Differences, because a request's tokens arrive tens of
// milliseconds apart: 4 bytes a token instead of 8 (issue 35), and exact.
type blocks struct {
	b    [][]byte
	n    int
	last int64
}

const blockBytes = 1 << 18 // 256 KiB

func (l *blocks) add(v int64) {
	if len(l.b) == 0 || cap(l.b[len(l.b)-1])-len(l.b[len(l.b)-1]) < binary.MaxVarintLen64 {
		l.b = append(l.b, make([]byte, 0, blockBytes))
	}
	last := &l.b[len(l.b)-1]
	*last = binary.AppendVarint(*last, v-l.last) // wraps like the decoder's sum
	l.last = v
	l.n++
}

// flatten returns the values in order in one slice (nil if none) and
// empties l, so that the blocks are garbage.
func (l *blocks) flatten() []int64 {
	if l.n == 0 {
		return nil
	}
	out := make([]int64, 0, l.n)
	var v int64
	for _, b := range l.b {
		for len(b) > 0 {
			d, k := binary.Varint(b)
			v += d
			out = append(out, v)
			b = b[k:]
		}
	}
	*l = blocks{}
	return out
}
