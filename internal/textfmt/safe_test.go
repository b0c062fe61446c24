package textfmt

import (
	"bytes"
	"fmt"
	"testing"
)

// Terminal-unsafe bytes come out as visible escapes; text, newlines and
// tabs (Safe) and any printable Unicode pass unchanged.
func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain model-7B ünï 日本":     "plain model-7B ünï 日本",
		"a\x1b[2J\x1b]0;pwned\x07b": `a\x1b[2J\x1b]0;pwned\x07b`,
		"line\nnext\tcol":           "line\nnext\tcol",
		"cr\roverwrite":             `cr\x0doverwrite`,
		"del\x7f nul\x00":           `del\x7f nul\x00`,
		"c1 \u009b31m":              `c1 \u009b31m`,
		"raw byte \x9b31m":          `raw byte \x9b31m`,
		"bidi \u202egnp.exe":        `bidi \u202egnp.exe`,
	} {
		if got := Safe(in); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
	}
	if got := SafeLine("a\nb\tc\x1b"); got != `a\x0ab\x09c\x1b` {
		t.Errorf("SafeLine: %q", got)
	}
}

// Whatever is formatted into a SafeWriter reaches the terminal escaped.
func TestSafeWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewSafeWriter(&b)
	if NewSafeWriter(w) != w {
		t.Error("wrapped twice")
	}
	n, err := fmt.Fprintf(w, "model %s\n", "m\x1b[31mred")
	if err != nil || n != len("model m\x1b[31mred\n") || b.String() != "model m\\x1b[31mred\n" {
		t.Errorf("%d %v %q", n, err, b.String())
	}
}
