package jsonscan

import (
	"errors"
	"strings"
	"testing"
)

// AppendStr decodes escapes into the caller's buffer, keeps at most about
// keep bytes, and reads a short string without allocating: the
// Prometheus decoder reads every sample's value this way.
func TestAppendStr(t *testing.T) {
	for _, c := range []struct {
		in, want string
		keep     int
	}{
		{`1.5"`, "1.5", 32},
		{`a\"b\\c\u00e9\n"`, "a\"b\\cé\n", 32},
		{`NaN" , more`, "NaN", 32},
		{strings.Repeat("x", 100) + `"`, strings.Repeat("x", 5), 5},
	} {
		s := New(strings.NewReader(c.in), 1<<20)
		var buf [32]byte
		got, err := s.AppendStr(buf[:0], c.keep)
		if err != nil || string(got) != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	s := New(strings.NewReader(strings.Repeat(`1795132800.5"`, 2)), 1<<20) // a warm-up read, then the counted one
	var buf [32]byte
	if n := testing.AllocsPerRun(1, func() {
		if b, err := s.AppendStr(buf[:0], len(buf)); err != nil || string(b) != "1795132800.5" {
			t.Errorf("%q, %v", b, err)
		}
	}); n != 0 {
		t.Errorf("%g allocations for a short string", n)
	}
}

// The byte cap and the end of input are told apart, and a bad escape is a
// syntax error at its line.
func TestStrErrors(t *testing.T) {
	if _, err := New(strings.NewReader(strings.Repeat("x", 100)), 10).Str(5); !errors.Is(err, ErrCap) {
		t.Errorf("over the cap: %v", err)
	}
	if _, err := New(strings.NewReader("abc"), 10).Str(5); !errors.Is(err, ErrEnd) {
		t.Errorf("unterminated: %v", err)
	}
	var se *SyntaxError
	if _, err := New(strings.NewReader("a\n\\q\""), 10).Str(5); !errors.As(err, &se) || se.Line != 2 {
		t.Errorf("bad escape: %v", err)
	}
}

// AppendStrMax refuses a string past its cap where it passes it, the
// rest unread, and keeps one within it whole; a long kept string is grown
// by doubling (append's 1.25× would allocate about 5× the string).
func TestAppendStrMax(t *testing.T) {
	s := New(strings.NewReader(`abc\n" rest`), 100)
	b, err := s.AppendStrMax(nil, 4)
	if err != nil || string(b) != "abc\n" {
		t.Fatalf("%q, %v", b, err)
	}
	s = New(strings.NewReader(strings.Repeat("x", 1000)+`"`), 2000)
	if _, err := s.AppendStrMax(nil, 10); !errors.Is(err, ErrLong) || s.Offset() != 11 {
		t.Errorf("%v after %d bytes, want ErrLong after 11", err, s.Offset())
	}
	long := strings.Repeat("y", 1<<20) + `"`
	allocs := testing.AllocsPerRun(3, func() {
		if b, err := New(strings.NewReader(long), 2<<20).AppendStrMax(nil, 2<<20); err != nil || len(b) != 1<<20 {
			t.Fatalf("%d bytes, %v", len(b), err)
		}
	})
	if allocs > 20 { // 8, 16, …, 256 by append, then 512 … 1 MiB doubled; the scanner's two
		t.Errorf("%.0f allocations keeping 1 MiB, want at most 20", allocs)
	}
}
