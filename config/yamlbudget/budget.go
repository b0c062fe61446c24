package yamlbudget

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Limits on a document once its aliases and merge keys are expanded, the
// way the decoder visits it. A few hundred bytes of nested aliases can
// stand for billions of nodes ("billion laughs"), and yaml.v3's own guard
// against that only runs when it decodes into Go values: it never sees the
// node tree package config walks (and copies, for secrets). No real config
// comes near these limits: a target with auth, TLS, headers and
// server_metrics is about 45 nodes (10,000 such targets measured 440,000),
// and an alias bomb just under maxNodes loads in 0.2 s and 250 MiB.
// maxText is sixteen 1M-token prompts. maxDepth is the depth yaml.v3 allows
// a written document: aliases cannot nest deeper than that. yaml.v3 checks
// a mapping for duplicate keys by comparing every pair of keys: maxKeyPairs
// bounds those comparisons (about 150 ms), which allows one mapping of
// 10,000 keys; 10,000 targets of 10 keys each make 450,000.
//
// maxAliasText bounds the scalar bytes that aliases add to what is written:
// one 61 KB scalar aliased 1,000 times made every probe upload a 66 MB
// body. Sharing a block of settings across thousands of targets adds a
// few hundred bytes each.
const (
	maxNodes     = 1_000_000
	maxText      = 64 << 20 // bytes of scalar text
	maxAliasText = 4 << 20  // bytes of scalar text added by aliases
	maxDepth     = 10_000
	maxKeyPairs  = 50_000_000
)

// maxPathSegments cuts the field path in budget errors: past the config's
// own fields (7 levels at most) it only lists list indexes.
const maxPathSegments = 12

// expanded is the size of a node with its aliases expanded.
type expanded struct {
	nodes, text, height, keyPairs int
}

// budget measures a document as if its aliases were expanded, in time
// linear in the document: an anchored node is measured once, and each alias
// to it then costs its measure. Only anchored nodes can be reached twice.
type budget struct {
	maxRegex int                      // bytes of a regex or output_regex value
	seen     map[*yaml.Node]*expanded // anchored nodes; nil while being measured
	path     []segment                // where measure is, for errors
	// aliasText is the text aliases add: each written alias adds its
	// anchor's expanded text, so the sum is exactly the expanded text
	// less the written text.
	aliasText int
}

type segment struct {
	key   string // a mapping key, or
	index int    // a list index (-1 for a key)
	line  int    // of the key or item
}

// Error is a refusal, at a line and field path of the document.
type Error struct {
	Line int
	Path string
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%d: %s: %s", e.Line, e.Path, e.Msg) }

// Check returns an *Error if root, expanded, exceeds a limit, holds an
// alias to a node that contains it, or a regex or output_regex value
// longer than maxRegex bytes. Call it before decoding.
func Check(root *yaml.Node, maxRegex int) *Error {
	b := &budget{maxRegex: maxRegex, seen: map[*yaml.Node]*expanded{}}
	if _, err := b.measure(root, 0); err != nil {
		return err
	}
	return nil
}

func (b *budget) measure(n *yaml.Node, depth int) (expanded, *Error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return b.alias(n, depth)
	}
	if n.Anchor != "" {
		b.seen[n] = nil
	}
	size := expanded{nodes: 1, text: len(n.Value), height: 1}
	if n.Kind == yaml.MappingNode {
		k := len(n.Content) / 2
		size.keyPairs = min(k*(k-1)/2, maxKeyPairs+1)
	}
	for i, c := range n.Content {
		if err := b.checkRegex(n, i); err != nil {
			return size, err
		}
		pushed := b.push(n, i)
		cs, err := b.measure(c, depth+1)
		if err != nil {
			return size, err
		}
		if pushed {
			b.path = b.path[:len(b.path)-1]
		}
		size.nodes = min(size.nodes+cs.nodes, maxNodes+1)
		size.text = min(size.text+cs.text, maxText+1)
		size.height = max(size.height, cs.height+1)
		size.keyPairs = min(size.keyPairs+cs.keyPairs, maxKeyPairs+1)
	}
	if err := b.check(size, n); err != nil {
		return size, err
	}
	if n.Anchor != "" {
		b.seen[n] = &size
	}
	return size, nil
}

// alias costs what its anchor's node costs, wherever it appears.
func (b *budget) alias(n *yaml.Node, depth int) (expanded, *Error) {
	size, ok := b.seen[n.Alias]
	switch {
	case !ok: // not seen with yaml.v3, which defines anchors before aliases
		return b.measure(n.Alias, depth)
	case size == nil:
		return expanded{}, b.errf(n, "alias *%s is inside the node it refers to (a cycle)", short(n.Value))
	case depth+size.height > maxDepth:
		return expanded{}, b.errf(n, "alias *%s nests this more than %d levels deep", short(n.Value), maxDepth)
	}
	if b.aliasText += size.text; b.aliasText > maxAliasText {
		return expanded{}, b.errf(n, "aliases add more than %d MiB of text (each alias counts the text of the node it refers to)", maxAliasText>>20)
	}
	return *size, nil
}

func (b *budget) check(size expanded, n *yaml.Node) *Error {
	if size.nodes > maxNodes {
		return b.errf(n, "more than %d YAML nodes once aliases and merge keys are expanded", maxNodes)
	}
	if size.text > maxText {
		return b.errf(n, "more than %d MiB of text once aliases and merge keys are expanded", maxText>>20)
	}
	if size.keyPairs > maxKeyPairs {
		return b.errf(n, "more than %d pairs of mapping keys once aliases and merge keys are expanded (yaml.v3 compares each pair for duplicates)", maxKeyPairs)
	}
	return nil
}

// push records the path to child i of n: a mapping's keys and values are
// both at the key's name.
func (b *budget) push(n *yaml.Node, i int) bool {
	switch n.Kind {
	case yaml.MappingNode:
		k := n.Content[i&^1]
		b.path = append(b.path, segment{key: k.Value, index: -1, line: k.Line})
	case yaml.SequenceNode:
		b.path = append(b.path, segment{index: i, line: n.Content[i].Line})
	default:
		return false
	}
	return true
}

// errf builds an Error at the current path, cut to maxPathSegments.
func (b *budget) errf(n *yaml.Node, format string, args ...any) *Error {
	path, line := "", n.Line
	for i, s := range b.path {
		if i == maxPathSegments {
			path += "…"
			break
		}
		if s.index >= 0 {
			path = index(path, s.index)
		} else {
			path = join(path, s.key)
		}
	}
	if len(b.path) > 0 {
		line = b.path[len(b.path)-1].line
	}
	return &Error{Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
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

// short cuts an anchor name for messages: yaml.v3 allows any length.
func short(name string) string {
	if len(name) > 32 {
		return strings.ToValidUTF8(name[:32], "") + "…"
	}
	return name
}

// checkRegex refuses an overlong relabel or validator regex before it is
// decoded: decoding compiles it, and Prometheus's relabel package does
// that before any check of ours runs.
func (b *budget) checkRegex(n *yaml.Node, i int) *Error {
	if n.Kind != yaml.MappingNode || i%2 == 0 {
		return nil
	}
	k, v := n.Content[i-1], n.Content[i]
	if (k.Value == "regex" || k.Value == "output_regex") && v.Kind == yaml.ScalarNode && len(v.Value) > b.maxRegex {
		b.push(n, i)
		return b.errf(v, "regex of %d bytes is over the %d-byte limit", len(v.Value), b.maxRegex)
	}
	return nil
}
