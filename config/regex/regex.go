package regex

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// A regex costs memory by its compiled program, not its source: about
// 380 bytes a source byte for a plain one, and a short counted repeat
// ((a{1000}){100}) is a program of 100,000 instructions. Both are capped,
// far above any validator or family-name pattern.
const (
	MaxBytes = 16 << 10 // bytes of source
	MaxInsts = 50_000   // instructions of the compiled program
)

// Regexp is an RE2 regexp that keeps its source for marshalling. It is
// unanchored (MatchString searches), which is what output validators want;
// use MatchFull where the whole string must match (passthrough names).
type Regexp struct {
	*regexp.Regexp
	Source string

	full *regexp.Regexp // anchored, for MatchFull
}

// New compiles s unanchored: output validators search the generated
// text, so "Paris" matches "The capital is Paris.".
func New(s string) (*Regexp, error) {
	if err := CheckSize(s); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("invalid regex %q: %w", s, err)
	}
	// Anchored copy for MatchFull; it compiles whenever s does.
	full := regexp.MustCompile("^(?:" + s + ")$")
	return &Regexp{Regexp: re, Source: s, full: full}, nil
}

// MatchFull reports whether the whole of s matches, as Prometheus relabel
// regexes do; passthrough family names are matched this way.
func (r *Regexp) MatchFull(s string) bool {
	if r.full == nil { // built by hand rather than by New
		return regexp.MustCompile("^(?:" + r.Source + ")$").MatchString(s)
	}
	return r.full.MatchString(s)
}

// UnmarshalYAML implements the v2-style yaml.Unmarshaler (yaml.v3 accepts it).
func (r *Regexp) UnmarshalYAML(unmarshal func(any) error) error {
	var s string
	if err := unmarshal(&s); err != nil {
		return err
	}
	re, err := New(s)
	if err != nil {
		return err
	}
	*r = *re
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (r Regexp) MarshalYAML() (any, error) {
	return r.Source, nil
}

// CheckSize refuses a regex over MaxBytes or MaxInsts before the regexp
// package builds it (a 1 MB one cost 377 MiB).
func CheckSize(s string) error {
	if len(s) > MaxBytes {
		return fmt.Errorf("regex of %d bytes is over the %d-byte limit", len(s), MaxBytes)
	}
	re, err := syntax.Parse(s, syntax.Perl)
	if err != nil {
		return fmt.Errorf("invalid regex %q: %w", s, err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return fmt.Errorf("invalid regex %q: %w", s, err)
	}
	if n := len(prog.Inst); n > MaxInsts {
		return fmt.Errorf("regex %q compiles to %d instructions, over the %d limit", short(s), n, MaxInsts)
	}
	return nil
}

// short cuts a long value for messages.
func short(s string) string {
	if len(s) > 32 {
		return strings.ToValidUTF8(s[:32], "") + "…"
	}
	return s
}
