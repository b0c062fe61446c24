package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"
)

// decoder walks the YAML node tree into the config structs itself instead
// of using yaml.v3's Decoder: that way every error, including those raised
// by third-party UnmarshalYAML methods (durations, HTTPClientConfig), gets
// a line and a field path, and unknown fields are rejected everywhere
// (yaml.v3's KnownFields is lost below custom unmarshalers).
type decoder struct {
	file  string
	dir   string         // for relative *_file paths
	lines map[string]int // field path -> line of its key, for non-null values
}

var (
	unmarshalerV3  = reflect.TypeFor[yaml.Unmarshaler]()
	unmarshalerV2  = reflect.TypeFor[interface{ UnmarshalYAML(func(any) error) error }]()
	httpClientType = reflect.TypeFor[config.HTTPClientConfig]()
)

// presetter lets a type fill in defaults that must exist before decoding.
type presetter interface{ preset() }

func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) error {
	n = resolve(n)
	if isNull(n) {
		return nil // leave the zero (or preset) value: defaults apply later
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			nv := reflect.New(v.Type().Elem())
			if p, ok := nv.Interface().(presetter); ok {
				p.preset()
			}
			v.Set(nv)
		}
		return d.decode(n, v.Elem(), path)
	}
	if v.Type() == targetDiscoveryType {
		return d.decodeTargetDiscovery(n, v, path)
	}
	if pt := reflect.PointerTo(v.Type()); pt.Implements(unmarshalerV3) || pt.Implements(unmarshalerV2) {
		return d.decodeCustom(n, v, path)
	}
	switch v.Kind() {
	case reflect.Struct:
		return d.decodeStruct(n, v, path)
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String {
			return d.decodeMap(n, v, path)
		}
	case reflect.Slice:
		return d.decodeSlice(n, v, path)
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		return fromYAML(err, d.file, d.line(path, n), path)
	}
	return nil
}

// decodeCustom hands n to the type's own UnmarshalYAML after checking for
// unknown fields; an HTTPClientConfig first gets its secrets resolved.
func (d *decoder) decodeCustom(n *yaml.Node, v reflect.Value, path string) error {
	if err := d.checkKnown(n, v.Type(), path); err != nil {
		return err
	}
	if v.Type() == httpClientType {
		var err error
		if n, err = d.resolveSecrets(n, path); err != nil {
			return err
		}
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		e := fromYAML(err, d.file, d.line(path, n), path)
		if _, typeErr := err.(*yaml.TypeError); typeErr {
			e = d.narrow(e)
		}
		return e
	}
	if hc, ok := v.Addr().Interface().(*config.HTTPClientConfig); ok {
		hc.SetDirectory(d.dir)
		// prometheus/common follows redirects by default; a probe must
		// not (a redirected POST comes back as a GET, or from elsewhere).
		if _, set := d.lines[path+".follow_redirects"]; !set {
			hc.FollowRedirects = false
		}
		// HTTP/1.1 unless asked: one stream per connection, as vLLM and
		// llama.cpp serve it, so chunk arrivals carry kernel receive
		// times (an HTTP/2 connection multiplexes other streams).
		if _, set := d.lines[path+".enable_http2"]; !set {
			hc.EnableHTTP2 = false
		}
	}
	return nil
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return d.kindError(n, path, "a mapping")
	}
	known, _ := fields(v.Type())
	seen := map[string]int{}
	for _, p := range pairs(n) {
		fpath := join(path, p.k.Value)
		if err := d.record(p, fpath, seen); err != nil {
			return err
		}
		idx, ok := known[p.k.Value]
		if !ok {
			return d.unknownField(p.k, path, known)
		}
		if err := d.decode(p.v, v.FieldByIndex(idx), fpath); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return d.kindError(n, path, "a mapping")
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	seen := map[string]int{}
	for _, p := range pairs(n) {
		fpath := join(path, p.k.Value)
		if err := d.record(p, fpath, seen); err != nil {
			return err
		}
		if p.k.Kind != yaml.ScalarNode {
			return d.kindError(p.k, path, "a scalar key")
		}
		ev := reflect.New(v.Type().Elem()).Elem()
		if err := d.decode(p.v, ev, fpath); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(p.k.Value).Convert(v.Type().Key()), ev)
	}
	return nil
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.SequenceNode {
		return d.kindError(n, path, "a list")
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		ipath := index(path, i)
		if !isNull(resolve(item)) {
			d.lines[ipath] = item.Line
		}
		if err := d.decode(item, s.Index(i), ipath); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

// record notes where a key is and rejects duplicate keys.
func (d *decoder) record(p pair, fpath string, seen map[string]int) error {
	if first, dup := seen[p.k.Value]; dup {
		return &Error{File: d.file, Line: p.k.Line, Path: fpath,
			Msg: fmt.Sprintf("duplicate field (first set at line %d)", first)}
	}
	seen[p.k.Value] = p.k.Line
	if !isNull(resolve(p.v)) {
		d.lines[fpath] = p.k.Line
	}
	return nil
}

func (d *decoder) kindError(n *yaml.Node, path, want string) error {
	got := map[yaml.Kind]string{yaml.ScalarNode: "a scalar", yaml.SequenceNode: "a list", yaml.MappingNode: "a mapping"}[n.Kind]
	if n.Kind == yaml.ScalarNode {
		got = fmt.Sprintf("%q", n.Value)
	}
	return &Error{File: d.file, Line: n.Line, Path: path, Msg: fmt.Sprintf("expected %s, got %s", want, got)}
}

// line is where to report an error about path: its key if known, else n.
func (d *decoder) line(path string, n *yaml.Node) int {
	if l, ok := d.lines[path]; ok {
		return l
	}
	return n.Line
}

// narrow points e at the deepest recorded field under e.Path on e.Line:
// yaml.v3 type errors inside a third-party type name only the line (and
// other errors, e.g. from Validate, concern the whole value).
func (d *decoder) narrow(e *Error) *Error {
	best := e.Path
	for p, l := range d.lines {
		if l == e.Line && len(p) > len(best) && strings.HasPrefix(p, e.Path+".") {
			best = p
		}
	}
	e.Path = best
	return e
}
