package textfmt

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Safe returns s with every byte or character a terminal, a log viewer or
// a page could act on written as a visible escape: C0 controls but \n and
// \t (ESC is "\x1b"), DEL, C1 controls ("\u009b"), Unicode's bidirectional
// overrides and isolates (they reorder what a reader sees), and bytes
// that are not UTF-8 ("\x9b": a raw CSI on an 8-bit terminal). Server
// answers and files are printed through it.
func Safe(s string) string { return escape(s, false) }

// SafeLine is Safe for one-line places (a label value, a name in a
// sentence): \n, \r and \t are escaped too.
func SafeLine(s string) string { return escape(s, true) }

func escape(s string, line bool) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, n, line) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s // the common case: no copy
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafe(r, n, line) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r, n, line):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func unsafe(r rune, n int, line bool) bool {
	switch {
	case r == utf8.RuneError && n <= 1:
		return true
	case r == '\n' || r == '\t':
		return line
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// SafeWriter writes through Safe: what reaches the terminal has no raw
// control sequence, whoever formatted it. A character split across two
// writes is escaped byte by byte (visible, never raw).
type SafeWriter struct{ W io.Writer }

// NewSafeWriter wraps w (a SafeWriter is not wrapped twice).
func NewSafeWriter(w io.Writer) io.Writer {
	if _, ok := w.(SafeWriter); ok {
		return w
	}
	return SafeWriter{w}
}

// Write writes Safe(p), and reports len(p) written when all of it was.
func (s SafeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.W, Safe(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
