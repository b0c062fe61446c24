package config

import (
	"fmt"
	"regexp"
)

// NewRegexp compiles s unanchored: output validators search the generated
// text, so "Paris" matches "The capital is Paris.".
func NewRegexp(s string) (*Regexp, error) {
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
	if r.full == nil { // built by hand rather than by NewRegexp
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
	re, err := NewRegexp(s)
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
