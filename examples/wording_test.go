package examples

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shareCalledGoodput finds "goodput" as a word (not inside an identifier
// such as llm_prober_goodput_percent or --knee-goodput) followed, within
// the same clause, by a percentage, "percent", "share" or "ratio": the
// share of good requests is SLO attainment; goodput is their rate.
var shareCalledGoodput = regexp.MustCompile(`(?i)(^|[^\w\-<>"])goodput($|[^\w\-<>:"])(?:[^.;|\n]|\.\d){0,25}?(%|percent\b|percentage|\bshare|\bratio)`)

// goLiteral is a Go string literal: in Go sources only the text of
// literals is read (with its format verbs dropped), not identifiers.
var (
	goLiteral = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)
	goVerb    = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)
	goRaw     = regexp.MustCompile("`[^`]*`")
)

// codeSpan is inline code: names (keys, flags, label values) kept for
// compatibility, not words.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// Issue 34: no text a person reads calls the share of good requests
// "goodput" (README, docs, the status page, bench's reports and
// messages). CHANGELOG.md is history and is left as written.
func TestNoShareCalledGoodput(t *testing.T) {
	var files []string
	for _, g := range []string{"../README.md", "../docs/*.md", "../web/*.go", "../loadtest/report/*.go", "../loadtest/report/*.tmpl",
		"../loadtest/summary/*.go", "../loadtest/sweep/*.go", "../loadtest/compare/*.go", "../cmd/llm-prober/bench/*.go"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d files found", len(files))
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".go") {
			// Raw strings (HTML templates) span lines: read them whole.
			for _, raw := range goRaw.FindAllString(string(b), -1) {
				if m := shareCalledGoodput.FindString(raw); m != "" {
					t.Errorf("%s: a raw string calls the share of good requests goodput (say SLO attainment): %q", f, strings.TrimSpace(m))
				}
			}
		}
		for i, line := range strings.Split(string(b), "\n") {
			line = codeSpan.ReplaceAllString(line, "`…`")
			if strings.HasSuffix(f, ".go") {
				line = goVerb.ReplaceAllString(strings.Join(goLiteral.FindAllString(line, -1), " "), "")
			}
			if m := shareCalledGoodput.FindString(line); m != "" {
				t.Errorf("%s:%d calls the share of good requests goodput (say SLO attainment): %q", f, i+1, strings.TrimSpace(m))
			}
		}
	}
}

// The pattern finds what it is meant to, and leaves names alone.
func TestShareCalledGoodputPattern(t *testing.T) {
	for s, want := range map[string]bool{
		"Goodput (%): 99":                        true,
		"goodput 99.5% of requests":              true,
		"the goodput ratio of the probes":        true,
		"request goodput (req/s)":                false,
		"llm_prober_goodput_percent":             false,
		"--knee-goodput 99 (percent)":            false,
		"--fail-on goodput<99":                   false,
		"`goodput` in --max-regression: 1 %":     false,
		"goodput is their rate. 5 % of them":     false,
		"SLO attainment (%), goodput (req/s)":    false,
		"with percentiles and goodput per stage": false,
	} {
		line := codeSpan.ReplaceAllString(s, "`…`")
		if got := shareCalledGoodput.MatchString(line); got != want {
			t.Errorf("%q: match %v, want %v", s, got, want)
		}
	}
}
