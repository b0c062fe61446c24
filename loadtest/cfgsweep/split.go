package cfgsweep

import (
	"errors"
	"fmt"
	"strings"
)

// errNeedsShell: a command uses what only a shell does (a pipe, &&, a
// redirection, $VAR); bench runs commands without one unless told.
var errNeedsShell = errors.New("needs a shell")

// splitWords splits s into words as a POSIX shell would for a plain
// command: blanks separate, '…' is literal, "…" keeps \" \\ \$ \` escapes,
// a backslash outside quotes escapes the next character. With strict, an
// unquoted | & ; < > ( ) $ ` is errNeedsShell: without a shell it would be
// passed on as text, which is never what was meant.
func splitWords(s string, strict bool) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' at byte %d", i)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				} else if strict && (s[i] == '$' || s[i] == '`') {
					return nil, fmt.Errorf("%w: %q inside \"…\" at byte %d", errNeedsShell, s[i], i)
				}
				if i < len(s) {
					w.WriteByte(s[i])
				}
			}
			if i >= len(s) {
				return nil, errors.New(`unterminated "`)
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("a trailing backslash")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case strict && strings.IndexByte("|&;<>()$`", c) >= 0:
			return nil, fmt.Errorf("%w: %q at byte %d", errNeedsShell, c, i)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// shellQuote quotes s for sh: one word, nothing expanded.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
