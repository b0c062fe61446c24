package cfgsweep

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// placeholder is {NAME} in a command: a parameter, or {port}.
var placeholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_-]*)\}`)

// Template is a server or apply command with {NAME} placeholders. Without
// a shell it is split into words first and each placeholder becomes part
// of one word whatever its value holds, so a value can never add an
// argument or a command; with Shell, the command runs under sh -c and
// each value is single-quoted into it.
type Template struct {
	Flag  string // the flag it came from, for errors
	Raw   string
	Shell bool
	words []string
}

// ParseTemplate checks a command: quoting, and (without shell) nothing
// that needs one.
func ParseTemplate(flag, raw string, shell bool) (*Template, error) {
	t := &Template{Flag: flag, Raw: raw, Shell: shell}
	if strings.TrimSpace(raw) == "" {
		return nil, fmt.Errorf("%s is empty", flag)
	}
	if !shell {
		w, err := splitWords(raw, true)
		if errors.Is(err, errNeedsShell) {
			return nil, fmt.Errorf("%s %w (add --server-shell to run it with sh -c): %w", flag, errNeedsShell, errors.Unwrap(err))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		t.words = w
	}
	return t, nil
}

// Names are the placeholders the command uses, in order, once each.
func (t *Template) Names() []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(t.Raw, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// Check fails on a placeholder no configuration sets, and on a parameter
// the command never uses (it would change nothing but the row's label).
func (t *Template) Check(cs []Configuration, port bool) error {
	used := t.Names()
	for _, c := range cs {
		for _, n := range used {
			if _, ok := c.Value(n); !ok && !(n == "port" && port) {
				return fmt.Errorf("%s uses {%s}, which configuration %s does not set", t.Flag, n, c.Label())
			}
		}
		for _, p := range c.Params {
			if !slices.Contains(used, p.Name) {
				return fmt.Errorf("parameter %s is not used in %s (put {%s} where its value goes)", p.Name, t.Flag, p.Name)
			}
		}
	}
	return nil
}

// Argv is the command for configuration c on port: the words with their
// placeholders filled in, or sh -c and the filled-in command.
func (t *Template) Argv(c Configuration, port int) []string {
	return t.argv(c, strconv.Itoa(port))
}

// Show is the command as a person reads it: the words, or the script
// sh -c runs; port "" shows {port}.
func (t *Template) Show(c Configuration, port int) string {
	p := "{port}"
	if port > 0 {
		p = strconv.Itoa(port)
	}
	argv := t.argv(c, p)
	if t.Shell {
		return argv[2]
	}
	return Display(argv)
}

func (t *Template) argv(c Configuration, port string) []string {
	fill := func(s string, quote bool) string {
		return placeholder.ReplaceAllStringFunc(s, func(m string) string {
			n := m[1 : len(m)-1]
			v, ok := c.Value(n)
			if n == "port" && !ok {
				v = port
				if port == "{port}" {
					return v // shown, never run
				}
			}
			if quote {
				return shellQuote(v)
			}
			return v
		})
	}
	if t.Shell {
		return []string{"/bin/sh", "-c", fill(t.Raw, true)}
	}
	out := make([]string, len(t.words))
	for i, w := range t.words {
		out[i] = fill(w, false)
	}
	return out
}

// Display is argv as one line a shell would read back the same.
func Display(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+{}", r))
		}) < 0 {
			b.WriteString(a)
		} else {
			b.WriteString(shellQuote(a))
		}
	}
	return b.String()
}
