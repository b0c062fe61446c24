package config

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is a configuration error pinned to a place in the file. It prints
// as FILE:LINE: PATH: MESSAGE, e.g.
//
//	llm-prober.yml:14: targets[1].timeout: timeout 30s is greater than interval 15s
//
// Path is empty only for YAML syntax errors, which have no field yet.
// Load and LoadFile return every error of a file, one *Error each, joined
// with errors.Join in line order (a single error is returned as is).
type Error struct {
	File string
	Line int
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Path, e.Msg)
}

// yamlLineRE finds the "line N: " that yaml.v3 puts in its messages.
var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// fromYAML turns a yaml.v3 syntax or unmarshaler error into an *Error;
// yaml.v3 knows the line of syntax errors, otherwise line is used.
func fromYAML(err error, file string, line int, path string) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	return &Error{File: file, Line: line, Path: path, Msg: msg}
}

// joinErrors sorts errs by line (keeping their order within a line), drops
// repeats (an error in an anchor is found at each alias) and joins them.
func joinErrors(errs []*Error) error {
	slices.SortStableFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	errs = slices.CompactFunc(errs, func(a, b *Error) bool { return *a == *b })
	if len(errs) == 1 {
		return errs[0]
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return errors.Join(out...) // nil if none
}

// The yaml.v3 type errors that get a message of their own.
var (
	unknownFieldRE = regexp.MustCompile(`^field (.+) not found in type `)
	dupKeyRE       = regexp.MustCompile(`^mapping key (".*") already defined at line (\d+)$`)
	cannotRE       = regexp.MustCompile("^cannot unmarshal (!!\\w+)(?: `(.*)`)? into (.*)$")
)

// typeErrors turns the "line N: message" list of a yaml.v3 TypeError into
// *Errors: the field path is that of the key (or value) on line N that the
// message names, found by walking root as a Config.
func (l *loader) typeErrors(te *yaml.TypeError, root *yaml.Node) {
	byLine := map[int][]*entry{}
	for _, msg := range te.Errors {
		if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			byLine[line] = nil
		}
	}
	walk(root, configType, "", 0, func(e *entry) bool {
		for _, line := range []int{e.line, resolve(*e.slot).Line} {
			if es, ok := byLine[line]; ok && (len(es) == 0 || es[len(es)-1] != e) {
				byLine[line] = append(es, e)
			}
		}
		return true
	})
	for _, msg := range te.Errors {
		e := fromYAML(errors.New(msg), l.file, 1, "")
		var at *entry
		find := func(match func(*entry) bool) {
			for _, c := range byLine[e.Line] {
				if at == nil && match(c) {
					at = c
				}
			}
		}
		keyed := func(name string) func(*entry) bool {
			return func(c *entry) bool { return c.key != nil && c.key.Line == e.Line && c.key.Value == name }
		}
		if m := unknownFieldRE.FindStringSubmatch(e.Msg); m != nil {
			if find(keyed(m[1])); at != nil {
				e.Msg = "unknown field" + hint(m[1], knownKeys(at.parent))
			}
		} else if m := dupKeyRE.FindStringSubmatch(e.Msg); m != nil {
			name, _ := strconv.Unquote(m[1])
			find(keyed(name))
			e.Msg = "duplicate field (first set at line " + m[2] + ")"
		} else if m := cannotRE.FindStringSubmatch(e.Msg); m != nil {
			// The value on the line with that tag and text; if several
			// (flow style), the one of the type named, else the deepest.
			best := 0
			for _, c := range byLine[e.Line] {
				v := resolve(*c.slot)
				if v.Line != e.Line || v.ShortTag() != m[1] || !strings.HasPrefix(v.Value, strings.TrimSuffix(m[2], "...")) {
					continue
				}
				score := strings.Count(c.path, ".") + strings.Count(c.path, "[")
				if c.typ != nil && base(c.typ).String() == m[3] {
					score += 1000
				}
				if at == nil || score > best {
					at, best = c, score
				}
			}
			if want := shape(at); want != "" && want != describe(resolve(*at.slot)) {
				e.Msg = "expected " + want + ", got " + describe(resolve(*at.slot))
			}
		} else {
			find(func(c *entry) bool { return c.line == e.Line })
		}
		if at != nil {
			e.Path = at.path
		}
		l.errs = append(l.errs, e)
	}
}

// shape is what a value of e's type must be written as, if it is a list or
// a mapping that yaml.v3 or this package decodes (a type with an
// UnmarshalYAML of its own may take a scalar).
func shape(e *entry) string {
	if e == nil || e.typ == nil {
		return ""
	}
	t := base(e.typ)
	if hasUnmarshaler(t) && t != targetType && t != targetDiscoveryType {
		return ""
	}
	return map[reflect.Kind]string{reflect.Slice: "a list", reflect.Struct: "a mapping", reflect.Map: "a mapping"}[t.Kind()]
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return map[yaml.Kind]string{yaml.SequenceNode: "a list", yaml.MappingNode: "a mapping"}[n.Kind]
}

// knownKeys are the keys a mapping decoded into t accepts.
func knownKeys(t reflect.Type) []string {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for k := range fields(t) {
		keys = append(keys, k)
	}
	if t == targetDiscoveryType {
		keys = append(keys, sdKeys()...)
	}
	return keys
}

// hint is ` (did you mean "NAME"?)` for the candidate closest to name, if
// one is close: at most two edits (and fewer than name has letters), or a
// name that starts with it ("modul" for "modules").
func hint(name string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		dist := editDistance(name, c)
		if len(name) >= 3 && strings.HasPrefix(c, name) {
			dist = 0
		}
		if dist < bestDist && dist < len(name) || (dist == bestDist && c < best) {
			best, bestDist = c, dist
		}
	}
	if best == "" {
		return ""
	}
	return ` (did you mean "` + best + `"?)`
}

// editDistance is the Levenshtein distance, for "did you mean" hints.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
