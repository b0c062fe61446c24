package cfgsweep

import (
	"strings"
	"sync"
)

// Bounds of a server's log kept for a failed row: the last logBytes
// bytes, of which the last tailLines lines (each cut at lineBytes) are
// shown. A server that logs gigabytes costs no more.
const (
	logBytes  = 64 << 10
	tailLines = 20
	lineBytes = 400
)

// ring keeps the last logBytes bytes written to it.
type ring struct {
	mu   sync.Mutex
	buf  []byte
	full bool
	next int
}

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.buf == nil {
		r.buf = make([]byte, logBytes)
	}
	n := len(p)
	if len(p) > logBytes {
		p = p[len(p)-logBytes:]
		r.full = true
	}
	for len(p) > 0 {
		c := copy(r.buf[r.next:], p)
		p = p[c:]
		r.next += c
		if r.next == logBytes {
			r.next, r.full = 0, true
		}
	}
	return n, nil
}

// Tail is the last lines written, each cut at lineBytes (raw: the caller
// escapes them where they are shown).
func (r *ring) Tail() string {
	r.mu.Lock()
	var s string
	if r.full {
		s = string(r.buf[r.next:]) + string(r.buf[:r.next])
	} else {
		s = string(r.buf[:r.next])
	}
	r.mu.Unlock()
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if r.full && len(lines) > 1 {
		lines = lines[1:] // the first was cut by the ring
	}
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	for i, l := range lines {
		if len(l) > lineBytes {
			lines[i] = l[:lineBytes] + "…"
		}
	}
	return strings.Join(lines, "\n")
}
