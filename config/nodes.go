package config

import (
	"reflect"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// resolve follows aliases and unwraps documents.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch {
		case n.Kind == yaml.AliasNode:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// null is a null node at n's place, to stand for a value already reported.
func null(n *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
}

// pair is a mapping entry; slot is where its value sits in its mapping.
type pair struct {
	k, v *yaml.Node
	slot **yaml.Node
}

// pairs lists a mapping's key/value pairs with merge keys (<<) expanded,
// as yaml.v3 decodes them: explicit keys win over merged ones, and earlier
// merges over later ones. Duplicate explicit keys are kept.
// Each merged mapping is visited once: a second visit could add no key, and
// revisiting made a chain of repeated merges exponential (or endless, for a
// mapping that merges itself).
func pairs(n *yaml.Node) []pair {
	var own []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !isMerge(k) {
			own = append(own, pair{k, n.Content[i+1], &n.Content[i+1]})
		}
	}
	if len(own) == len(n.Content)/2 { // no merge keys
		return own
	}
	seen := make(map[string]bool, len(own))
	for _, p := range own {
		seen[p.k.Value] = true
	}
	visited := map[*yaml.Node]bool{n: true}
	var merge func(m *yaml.Node)
	merge = func(m *yaml.Node) {
		for _, s := range mergeSources(m) {
			if visited[s] {
				continue
			}
			visited[s] = true
			for i := 0; i+1 < len(s.Content); i += 2 {
				if k := s.Content[i]; !isMerge(k) && !seen[k.Value] {
					seen[k.Value] = true
					own = append(own, pair{k, s.Content[i+1], &s.Content[i+1]})
				}
			}
			merge(s)
		}
	}
	merge(n)
	return own
}

func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge"
}

// mergeSources lists the mappings that m's merge keys name, in order.
func mergeSources(m *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !isMerge(m.Content[i]) {
			continue
		}
		v := resolve(m.Content[i+1])
		srcs := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			srcs = v.Content
		}
		for _, s := range srcs {
			if s = resolve(s); s.Kind == yaml.MappingNode {
				out = append(out, s)
			}
		}
	}
	return out
}

// copyNode deep-copies n with aliases resolved, so that secrets expanded in
// one http_client_config never leak into a shared anchor.
func copyNode(n *yaml.Node) *yaml.Node {
	n = resolve(n)
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = copyNode(ch)
	}
	return &c
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// parent strips the last field or index from a path ("" at the root).
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// entry is one value of the document: a mapping value or a list item.
type entry struct {
	path   string
	key    *yaml.Node   // nil for a list item
	slot   **yaml.Node  // where the value sits in its parent
	line   int          // of the key, or of the item
	typ    reflect.Type // the Go type the value decodes into; nil if unknown
	parent reflect.Type // the Go type of the parent
}

// maxWalkDepth bounds walk below the config's own fields (8 levels at
// most), in values of no known type (under an unknown key).
const maxWalkDepth = 32

// walk calls visit for every value below n, in document order, with aliases
// and merge keys followed; n decodes into Go type t (nil if unknown). visit
// returns whether to walk into the value (which it may replace). Free-form
// values (extra_body's, of type any) are not walked into.
func walk(n *yaml.Node, t reflect.Type, path string, depth int, visit func(*entry) bool) {
	if n, t = resolve(n), base(t); depth > maxWalkDepth || t != nil && t.Kind() == reflect.Interface {
		return
	}
	var es []*entry
	switch n.Kind {
	case yaml.MappingNode:
		for _, p := range pairs(n) {
			es = append(es, &entry{path: join(path, p.k.Value), key: p.k, slot: p.slot, line: p.k.Line, typ: fieldType(t, p.k.Value), parent: t})
		}
	case yaml.SequenceNode:
		var et reflect.Type
		if t != nil && t.Kind() == reflect.Slice {
			et = t.Elem()
		}
		for i := range n.Content {
			es = append(es, &entry{path: index(path, i), slot: &n.Content[i], line: n.Content[i].Line, typ: et, parent: t})
		}
	}
	for _, e := range es {
		if visit(e) {
			walk(*e.slot, e.typ, e.path, depth+1, visit)
		}
	}
}

// fieldType is the type of key in a value of type t.
func fieldType(t reflect.Type, key string) reflect.Type {
	switch {
	case t == nil:
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		return t.Elem()
	case t.Kind() == reflect.Struct:
		if ft, ok := fields(t)[key]; ok {
			return ft
		}
		if t == targetDiscoveryType {
			return sdType(key)
		}
		if mt := inlineMap(t); mt != nil {
			return mt.Elem()
		}
	}
	return nil
}

// inlineMaps caches inlineMap: reflect.Type -> reflect.Type (nil if none).
var inlineMaps sync.Map

// inlineMap is the type of t's `yaml:",inline"` map field, if it has one
// (prometheus/common's Headers: http_headers.NAME), which takes every key
// that is not one of t's fields.
func inlineMap(t reflect.Type) reflect.Type {
	if m, ok := inlineMaps.Load(t); ok {
		mt, _ := m.(reflect.Type)
		return mt
	}
	var mt reflect.Type
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		_, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if f.IsExported() && strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Map && f.Type.Key().Kind() == reflect.String {
			mt = f.Type
		}
	}
	inlineMaps.Store(t, mt)
	return mt
}

var fieldsCache sync.Map // reflect.Type -> map[string]reflect.Type

// fields maps the YAML keys of struct type t to field types, following
// `yaml:",inline"` structs (an inline map has no key of its own).
func fields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldsCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	byKey := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case !f.IsExported() || name == "-":
		case strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct:
			for k, ft := range fields(f.Type) {
				byKey[k] = ft
			}
		case strings.Contains(opts, "inline"): // a map: see inlineMap
		case name == "":
			byKey[strings.ToLower(f.Name)] = f.Type
		default:
			byKey[name] = f.Type
		}
	}
	fieldsCache.Store(t, byKey)
	return byKey
}
