package config

import "github.com/llm-prober/llm-prober/config/regex"

// Regexp is an RE2 regexp that keeps its source (config/regex).
type Regexp = regex.Regexp

// maxRegexBytes caps a regex's source, checked in the file's budget too.
const maxRegexBytes = regex.MaxBytes

// NewRegexp compiles s unanchored, under the caps (regex.New).
func NewRegexp(s string) (*Regexp, error) { return regex.New(s) }
