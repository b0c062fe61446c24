package loadtest

// blocks is an append-only list of int64 kept in fixed-size blocks: it
// grows without the copies of a doubling slice, whose old and new arrays
// are both live while it grows (at 1.3 M token times: 10 MB live, up to
// 23 MB while growing, during the run when the streams need the memory).
type blocks struct {
	b [][]int64
	n int
}

const blockLen = 1 << 16 // 512 KiB

func (l *blocks) add(v int64) {
	if len(l.b) == 0 || len(l.b[len(l.b)-1]) == blockLen {
		l.b = append(l.b, make([]int64, 0, blockLen))
	}
	last := &l.b[len(l.b)-1]
	*last = append(*last, v)
	l.n++
}

// flatten returns the values in order in one slice (nil if none) and
// empties l, so that the blocks are garbage.
func (l *blocks) flatten() []int64 {
	if l.n == 0 {
		return nil
	}
	out := make([]int64, 0, l.n)
	for _, b := range l.b {
		out = append(out, b...)
	}
	*l = blocks{}
	return out
}
