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
// Path is empty only for YAML syntax errors, which have no field yet, and
// errors about the document as a whole (not a mapping, a key of its own
// that is not a scalar, excessive aliasing).
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
	return &Error{File: file, Line: line, Path: path, Msg: userinfoRE.ReplaceAllString(msg, "${1}xxxxx@")}
}

// userinfoRE finds the user:password@ of a URL in a message: a type's
// UnmarshalYAML may quote the URL it could not parse (a proxy_url, an SD
// config's url or api_server), and a password is a secret.
var userinfoRE = regexp.MustCompile("([a-zA-Z][a-zA-Z0-9+.-]*://)[^\\s\"'`]*@")

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
	taken := map[*entry]string{} // the message each entry was given
	for _, msg := range te.Errors {
		e := fromYAML(errors.New(msg), l.file, 1, "")
		raw := e.Msg
		var at *entry
		// find picks the first entry on the line that match accepts and
		// that has not had the same message (flow style puts several
		// alike on one line: [{foo: 1}, {foo: 2}]).
		find := func(match func(*entry) bool) {
			var again *entry
			for _, c := range byLine[e.Line] {
				switch {
				case at != nil || !match(c):
				case taken[c] != raw:
					at = c
				case again == nil:
					again = c
				}
			}
			if at == nil {
				at = again
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
			e.Path = l.cannot(e, m, byLine[e.Line], taken)
			continue
		} else {
			find(func(c *entry) bool { return c.line == e.Line })
		}
		if at != nil {
			e.Path = at.path
			taken[at] = raw
		}
		l.errs = append(l.errs, e)
	}
}

// cannot words a "cannot unmarshal TAG `VALUE` into TYPE" error m of
// yaml.v3, pinned to the value on its line with that tag and text; if
// several (flow style), the one of the type named, else the deepest; else
// the deepest entry on the line. (A key that is not a scalar never gets
// here: see checkKeys.) Values are not shown where a secret may be (a
// secret put where a mapping belongs, say).
func (l *loader) cannot(e *Error, m []string, es []*entry, taken map[*entry]string) string {
	var at *entry
	best := 0
	for _, c := range es {
		v := resolve(*c.slot)
		if v.Line != e.Line || v.ShortTag() != m[1] || !strings.HasPrefix(v.Value, strings.TrimSuffix(m[2], "...")) {
			continue
		}
		score := depth(c.path)
		if c.typ != nil && base(c.typ).String() == m[3] {
			score += 1000
		}
		if taken[c] == e.Msg {
			score -= 10000
		}
		if at == nil || score > best {
			at, best = c, score
		}
	}
	if at == nil { // the deepest entry on the line
		for _, c := range es {
			if at == nil || depth(c.path) > depth(at.path) {
				at = c
			}
		}
	}
	l.errs = append(l.errs, e)
	if at == nil {
		return ""
	}
	taken[at] = e.Msg
	switch got := resolve(*at.slot); {
	case shape(at, m[3]) != "" && shape(at, m[3]) != kind(got):
		e.Msg = "expected " + shape(at, m[3]) + ", got " + describe(got, at.path)
	case m[2] != "" && secretPath(at.path) && !scalarTypeRE.MatchString(m[3]):
		e.Msg = "cannot unmarshal " + tagKind(m[1]) + " into " + m[3]
	}
	return at.path
}

// scalarTypeRE matches the Go types whose values yaml.v3 may show in a
// message where a secret can be: no secret is a number or a boolean.
var scalarTypeRE = regexp.MustCompile(`^(bool|u?int(8|16|32|64)?|float(32|64))$`)

func depth(path string) int {
	return strings.Count(path, ".") + strings.Count(path, "[")
}

// shape is what a value of e's type must be written as, if it is a list or
// a mapping that yaml.v3 or this package decodes. A type with an
// UnmarshalYAML of its own may take a scalar, unless yaml.v3 says it
// decoded into the type itself or its plain copy (type plain T).
func shape(e *entry, into string) string {
	if e == nil || e.typ == nil {
		return ""
	}
	t := base(e.typ)
	if hasUnmarshaler(t) && t != targetDiscoveryType && into != t.String() && !strings.HasSuffix(into, ".plain") {
		return ""
	}
	return map[reflect.Kind]string{reflect.Slice: "a list", reflect.Struct: "a mapping", reflect.Map: "a mapping"}[t.Kind()]
}

// secretPath reports whether a secret may be written at path, or below it:
// in an http_client_config or a service discovery's config.
func secretPath(path string) bool {
	return strings.Contains(path, "http_client_config") || strings.Contains(path, sdSuffix)
}

// describe is n's kind, and a scalar's value unless a secret may be
// written at path.
func describe(n *yaml.Node, path string) string {
	if n.Kind == yaml.ScalarNode && !secretPath(path) {
		return strconv.Quote(n.Value)
	}
	return kind(n)
}

// kind names what n is, never its value.
func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return tagKind(n.ShortTag())
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "nothing"
}

func tagKind(tag string) string {
	switch tag {
	case "!!str", "!!binary":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	case "!!timestamp":
		return "a timestamp"
	case "!!seq":
		return "a list"
	case "!!map":
		return "a mapping"
	}
	return "a scalar"
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
