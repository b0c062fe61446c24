package config

import (
	"reflect"
	"strconv"
	"strings"

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

type pair struct{ k, v *yaml.Node }

// pairs lists a mapping's key/value pairs with merge keys (<<) expanded.
// Explicit keys win over merged ones, and earlier merges over later ones,
// as in YAML 1.1. Duplicate explicit keys are kept so callers can reject them.
// Each merged mapping is visited once: a second visit could add no key, and
// revisiting made a chain of repeated merges exponential (or endless, for a
// mapping that merges itself).
func pairs(n *yaml.Node) []pair {
	var own []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !isMerge(k) {
			own = append(own, pair{k, n.Content[i+1]})
		}
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
					own = append(own, pair{k, s.Content[i+1]})
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
// one target's http_client_config never leak into a shared anchor.
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

// fields maps the YAML keys of struct type t to field indexes, following
// `yaml:",inline"` structs; inlineMap is the index of an inline map, if any.
func fields(t reflect.Type) (byKey map[string][]int, inlineMap []int) {
	byKey = map[string][]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(opts, "inline") {
			switch f.Type.Kind() {
			case reflect.Struct:
				sub, subMap := fields(f.Type)
				for k, idx := range sub {
					byKey[k] = append([]int{i}, idx...)
				}
				if subMap != nil {
					inlineMap = append([]int{i}, subMap...)
				}
			case reflect.Map:
				inlineMap = []int{i}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		byKey[name] = []int{i}
	}
	return byKey, inlineMap
}

// unknownField reports key k as unknown, suggesting the closest known key.
func (d *decoder) unknownField(k *yaml.Node, path string, known map[string][]int) error {
	msg := "unknown field"
	best, bestDist := "", 3
	for name := range known {
		dist := editDistance(k.Value, name)
		if len(k.Value) >= 3 && strings.HasPrefix(name, k.Value) {
			dist = 0 // a truncated name: "modul" means "modules"
		}
		if dist < bestDist || (dist == bestDist && name < best) {
			best, bestDist = name, dist
		}
	}
	if best != "" {
		msg += ` (did you mean "` + best + `"?)`
	}
	return &Error{File: d.file, Line: k.Line, Path: join(path, k.Value), Msg: msg}
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
