package jsonscan

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Scanner reads one JSON document a byte at a time under caps:
// bytes read, nesting depth, and (by its callers) elements kept. It
// holds only the values asked for, never a skipped one, and counts lines
// for errors. encoding/json's Decoder buffers a whole value to decode it
// and grows a stack per bracket with no bound (a 60 MiB file of '['
// cost ~2 GiB), and its Token walks a skipped array ~20× slower.
type Scanner struct {
	r     *bufio.Reader
	line  int
	left  int64 // bytes that may still be read
	limit int64
	depth int
}

// Caps of a scanned document.
const (
	MaxDepth     = 64  // a sweep result nests 5 deep
	MaxKeyBytes  = 128 // longer keys are none the reader looks for
	MaxNumberLen = 64  // a longer number is refused where it is read
)

// ErrCap: the byte cap was reached (the caller names the file or answer).
var ErrCap = errors.New("over the byte cap")

// ErrEnd: the document ended inside a value (or, from End, none began).
var ErrEnd = errors.New("the JSON ends early")

// SyntaxError is bad JSON at a line.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return e.Msg }

// New reads r, at most limit bytes of it.
func New(r io.Reader, limit int64) *Scanner {
	return &Scanner{r: bufio.NewReaderSize(r, 64<<10), line: 1, left: limit, limit: limit}
}

// Line is the line the scanner is on (1-based), for errors.
func (s *Scanner) Line() int { return s.line }

// Syntax is a *SyntaxError at the current line.
func (s *Scanner) Syntax(format string, args ...any) error {
	return &SyntaxError{Line: s.line, Msg: fmt.Sprintf(format, args...)}
}

// next reads one byte.
func (s *Scanner) next() (byte, error) {
	if s.left <= 0 {
		return 0, ErrCap
	}
	c, err := s.r.ReadByte()
	switch {
	case err == io.EOF:
		return 0, ErrEnd
	case err != nil:
		return 0, err
	}
	s.left--
	if c == '\n' {
		s.line++
	}
	return c, nil
}

// NonSpace reads past white space to the next byte.
func (s *Scanner) NonSpace() (byte, error) {
	for {
		c, err := s.next()
		if err != nil || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return c, err
		}
	}
}

// End checks that only white space follows the document.
func (s *Scanner) End() error {
	c, err := s.NonSpace()
	switch {
	case errors.Is(err, ErrEnd):
		return nil
	case err != nil:
		return err
	}
	return s.Syntax("%q after the end of the JSON document", c)
}

func (s *Scanner) enter() error {
	if s.depth++; s.depth > MaxDepth {
		return s.Syntax("nested more than %d deep", MaxDepth)
	}
	return nil
}

// Object reads an object whose '{' was read, calling member with each key
// and the first byte of its value, which member must read whole.
func (s *Scanner) Object(member func(key string, c byte) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer func() { s.depth-- }()
	c, err := s.NonSpace()
	if err != nil || c == '}' {
		return err
	}
	for {
		if c != '"' {
			return s.Syntax("want a key, got %q", c)
		}
		key, err := s.Str(MaxKeyBytes)
		if err != nil {
			return err
		}
		if c, err = s.NonSpace(); err != nil {
			return err
		} else if c != ':' {
			return s.Syntax("want ':' after key %q, got %q", key, c)
		}
		if c, err = s.NonSpace(); err != nil {
			return err
		}
		if err := member(key, c); err != nil {
			return err
		}
		if c, err = s.NonSpace(); err != nil {
			return err
		}
		switch c {
		case '}':
			return nil
		case ',':
			if c, err = s.NonSpace(); err != nil {
				return err
			}
		default:
			return s.Syntax("want ',' or '}' after %q's value, got %q", key, c)
		}
	}
}

// Array reads an array whose '[' was read, calling elem with each
// element's index and first byte; elem must read the element whole.
func (s *Scanner) Array(elem func(i int, c byte) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer func() { s.depth-- }()
	c, err := s.NonSpace()
	if err != nil || c == ']' {
		return err
	}
	for i := 0; ; i++ {
		if err := elem(i, c); err != nil {
			return err
		}
		if c, err = s.NonSpace(); err != nil {
			return err
		}
		switch c {
		case ']':
			return nil
		case ',':
			if c, err = s.NonSpace(); err != nil {
				return err
			}
		default:
			return s.Syntax("want ',' or ']' in an array, got %q", c)
		}
	}
}

// Skip reads one value starting with c, keeping nothing.
func (s *Scanner) Skip(c byte) error {
	switch {
	case c == '"':
		_, err := s.Str(0)
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.Number(c, false)
		return err
	case c == 't':
		return s.literal("true"[1:])
	case c == 'f':
		return s.literal("false"[1:])
	case c == 'n':
		return s.literal("null"[1:])
	case c == '[':
		return s.Array(func(_ int, c byte) error { return s.Skip(c) })
	case c == '{':
		return s.Object(func(_ string, c byte) error { return s.Skip(c) })
	}
	return s.Syntax("unexpected %q", c)
}

func (s *Scanner) literal(rest string) error {
	for i := range len(rest) {
		c, err := s.next()
		if err != nil {
			return err
		}
		if c != rest[i] {
			return s.Syntax("unexpected %q in a literal", c)
		}
	}
	return nil
}

// Str reads a string whose '"' was read, returning at most about keep
// bytes of it (decoded; cut on a character boundary, then by the caller
// on a rune's). As encoding/json does, invalid UTF-8 becomes U+FFFD, so a
// kept string is always a valid label value.
func (s *Scanner) Str(keep int) (string, error) {
	out, err := s.AppendStr(nil, keep)
	if err != nil {
		return "", err
	}
	return strings.ToValidUTF8(string(out), "\uFFFD"), nil
}

// ErrLong: a string passed the length AppendStrMax was given.
var ErrLong = errors.New("a string over its length cap")

// Offset is how many bytes were read, for a caller's cap on one element.
func (s *Scanner) Offset() int64 { return s.limit - s.left }

// AppendStr reads a string whose '"' was read, appending at most about
// keep bytes of it, decoded but unchecked for UTF-8, to dst: with a
// buffer of the caller's, a short string costs no allocation.
func (s *Scanner) AppendStr(dst []byte, keep int) ([]byte, error) {
	return s.appendStr(dst, keep, false)
}

// AppendStrMax is AppendStr that stops with ErrLong once the string has
// passed limit bytes, unread beyond them: a string every byte of which is
// kept is refused at its cap, not read to its end.
func (s *Scanner) AppendStrMax(dst []byte, limit int) ([]byte, error) {
	return s.appendStr(dst, limit, true)
}

func (s *Scanner) appendStr(dst []byte, keep int, strict bool) ([]byte, error) {
	out, keep := dst, len(dst)+keep
	for {
		c, err := s.next()
		if err != nil {
			return dst, err
		}
		switch {
		case c == '"':
			return out, nil
		case c < 0x20:
			return dst, s.Syntax("control character %q in a string", c)
		case c != '\\':
			if len(out) < keep {
				if len(out) == cap(out) && cap(out) >= 256 { // doubled up to keep: append's 1.25× past 256 allocates 5× a long string in all
					grown := make([]byte, len(out), min(2*cap(out), keep))
					out = grown[:copy(grown, out)]
				}
				out = append(out, c)
			} else if strict {
				return dst, ErrLong
			}
			continue
		}
		if c, err = s.next(); err != nil {
			return dst, err
		}
		var r rune
		switch c {
		case '"', '\\', '/':
			r = rune(c)
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			var hex [4]byte
			for i := range hex {
				if hex[i], err = s.next(); err != nil {
					return dst, err
				}
			}
			v, err := strconv.ParseUint(string(hex[:]), 16, 16)
			if err != nil {
				return dst, s.Syntax("bad escape %q", `\u`+string(hex[:]))
			}
			r = rune(v) // a lone surrogate becomes U+FFFD
		default:
			return dst, s.Syntax("bad escape %q", `\`+string(c))
		}
		if len(out) < keep {
			out = utf8.AppendRune(out, r)
		} else if strict {
			return dst, ErrLong
		}
	}
}

// Number reads a number starting with c and, with parse, parses it
// (NaN-free: JSON has none); one longer than MaxNumberLen is read but
// not parsed. A skipped number is only checked.
func (s *Scanner) Number(c byte, parse bool) (float64, error) {
	var nb numBuf
	add := nb.add
	add(c)
	if c == '-' {
		var err error
		if c, err = s.next(); err != nil {
			return 0, err
		}
		add(c)
	}
	switch {
	case c == '0':
	case c >= '1' && c <= '9':
		if _, err := s.digits(&nb); err != nil {
			return 0, err
		}
	default:
		return 0, s.Syntax("bad number")
	}
	if ok, err := s.accept('.', 0); err != nil {
		return 0, err
	} else if ok {
		add('.')
		if k, err := s.digits(&nb); err != nil {
			return 0, err
		} else if k == 0 {
			return 0, s.Syntax("bad number: no digit after '.'")
		}
	}
	if ok, err := s.accept('e', 'E'); err != nil {
		return 0, err
	} else if ok {
		add('e')
		if ok, err := s.accept('-', 0); err != nil {
			return 0, err
		} else if ok {
			add('-')
		} else if _, err := s.accept('+', 0); err != nil {
			return 0, err
		}
		if k, err := s.digits(&nb); err != nil {
			return 0, err
		} else if k == 0 {
			return 0, s.Syntax("bad number: no digit in the exponent")
		}
	}
	switch {
	case nb.n > len(nb.b):
		return 0, s.Syntax("a number of %d characters", nb.n)
	case !parse:
		return 0, nil
	}
	// Out of range (1e999) is ±Inf with an error: the caller refuses it.
	v, _ := strconv.ParseFloat(string(nb.b[:nb.n]), 64)
	return v, nil
}

// numBuf holds a number's first MaxNumberLen bytes and counts all.
type numBuf struct {
	b [MaxNumberLen]byte
	n int
}

func (nb *numBuf) add(c byte) {
	if nb.n < len(nb.b) {
		nb.b[nb.n] = c
	}
	nb.n++
}

// accept reads the next byte if it is a or b (b 0: a only); the end of
// the input is no error here (the caller's next read reports it), the
// byte cap is.
func (s *Scanner) accept(a, b byte) (bool, error) {
	c, err := s.next()
	switch {
	case err == ErrEnd: // a sentinel, never wrapped
		return false, nil
	case err != nil:
		return false, err
	case c == a || b != 0 && c == b:
		return true, nil
	}
	s.unread(c)
	return false, nil
}

// digits reads a run of decimal digits into nb.
func (s *Scanner) digits(nb *numBuf) (int, error) {
	for k := 0; ; k++ {
		c, err := s.next()
		switch {
		case err == ErrEnd: // a sentinel, never wrapped
			return k, nil
		case err != nil:
			return k, err
		case c < '0' || c > '9':
			s.unread(c)
			return k, nil
		}
		nb.add(c)
	}
}

// unread puts back the byte next just read.
func (s *Scanner) unread(c byte) {
	_ = s.r.UnreadByte()
	s.left++
	if c == '\n' {
		s.line--
	}
}
