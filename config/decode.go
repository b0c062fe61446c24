package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"

	"github.com/llm-prober/llm-prober/config/yamlbudget"
)

// Decoding is yaml.v3's, with KnownFields: it walks the file, converts
// values and rejects unknown fields, also inside prometheus/common's and
// Prometheus's types, whose v2-style UnmarshalYAML(func(any) error) decode
// with the same strict decoder (a v3-style UnmarshalYAML(*yaml.Node) that
// calls node.Decode would lose it). yaml.v3 hands the loader the file's
// node tree first, so that it can add what yaml.v3 does not do:
//
//   - a bound on what aliases expand to (budget.go);
//   - ${ENV} secrets in http_client_config and in the *_sd_configs' HTTP
//     client fields, and no inline ones (secrets.go);
//   - merge keys (<<) of a value that is not a mapping, and keys that are
//     not scalars, which stop yaml.v3 with neither line nor path
//     (checkKeys);
//   - a line and a field path for the errors of a type's own UnmarshalYAML
//     (a bad duration, an HTTPClientConfig that fails Validate): yaml.v3
//     stops at the first with neither, so the loader decodes each such
//     value on its own first, reports its error and hands yaml.v3 a null
//     in its place;
//   - a field path and did-you-mean hint for each yaml.v3 type error
//     (errors.go).
type loader struct {
	file, dir string
	cfg       *Config
	lines     map[string]int // field path -> line of its key, for values written
	errs      []*Error
	resolved  map[*yaml.Node]bool // http_client_config copies with secrets resolved
	root      *yaml.Node          // the document's, once yaml.v3 has handed it over
}

func (l *loader) errorf(line int, path, format string, args ...any) {
	l.errs = append(l.errs, &Error{File: l.file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)})
}

var (
	configType     = reflect.TypeFor[Config]()
	httpClientType = reflect.TypeFor[config.HTTPClientConfig]()
	unmarshalerV3  = reflect.TypeFor[yaml.Unmarshaler]()
	unmarshalerV2  = reflect.TypeFor[interface{ UnmarshalYAML(func(any) error) error }]()
)

// UnmarshalYAML is called by yaml.v3 with the file's root: unmarshal gives
// the node (to a nodeOf), then decodes it, as changed by check, into the
// config with the file's decoder, KnownFields included.
func (l *loader) UnmarshalYAML(unmarshal func(any) error) error {
	var root nodeOf
	if err := unmarshal(&root); err != nil {
		return err
	}
	if e := yamlbudget.Check(root.n, maxRegexBytes); e != nil {
		return &Error{File: l.file, Line: e.Line, Path: e.Path, Msg: e.Msg}
	}
	if root.n.Kind != yaml.MappingNode {
		return &Error{File: l.file, Line: root.n.Line, Msg: "expected a mapping, got " + kind(root.n)}
	}
	l.root = root.n
	l.checkKeys(root.n, nil)
	walk(root.n, configType, "", 0, l.record)
	walk(root.n, configType, "", 0, l.check)
	var te *yaml.TypeError
	switch err := unmarshal(l.cfg); {
	case errors.As(err, &te):
		l.typeErrors(te, root.n)
	case err != nil: // not expected: check decoded every value with its own UnmarshalYAML
		l.errs = append(l.errs, fromYAML(err, l.file, root.n.Line, ""))
	}
	return nil
}

// nodeOf keeps the node yaml.v3 decodes into it: the decoder's own.
type nodeOf struct{ n *yaml.Node }

func (o *nodeOf) UnmarshalYAML(n *yaml.Node) error {
	o.n = n
	return nil
}

// checkKeys reports what would stop yaml.v3 with an error of no line or
// path, dropping every other error, and takes it out of the document:
//
//   - a merge key (<<) whose value is not a mapping, an alias to one or a
//     list of those: its value (or list item) becomes an empty mapping;
//   - a key that is not a scalar (? [a] : b), which no mapping of a config
//     takes (in a free-form value, yaml.v3 stops at it): the pair goes.
//
// It walks the document as written (an anchored value once, where it is
// defined); the path is only built for an error (a deep document would
// make building each one quadratic).
func (l *loader) checkKeys(n *yaml.Node, at *step) {
	if n.Kind == yaml.MappingNode {
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := resolve(n.Content[i]); k.Kind != yaml.ScalarNode {
				l.errorf(n.Content[i].Line, at.path(), "expected a scalar key, got %s", kind(k))
				continue
			}
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	}
	isMap := func(v *yaml.Node) bool {
		return v.Kind == yaml.MappingNode || v.Kind == yaml.AliasNode && v.Alias != nil && v.Alias.Kind == yaml.MappingNode
	}
	empty := func(v *yaml.Node) *yaml.Node {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: v.Line, Column: v.Column}
	}
	for i, c := range n.Content {
		here := &step{up: at, index: i}
		if n.Kind == yaml.MappingNode {
			here.key, here.index = n.Content[i&^1].Value, -1
		}
		if n.Kind == yaml.MappingNode && i%2 == 1 && isMerge(n.Content[i-1]) {
			switch k := n.Content[i-1]; {
			case isMap(c):
			case c.Kind == yaml.SequenceNode:
				for j, s := range c.Content {
					if !isMap(s) {
						l.errorf(s.Line, index(here.path(), j), "a merge key (<<) takes mappings, got %s", kind(resolve(s)))
						c.Content[j] = empty(s)
					}
				}
			default:
				l.errorf(k.Line, here.path(), "a merge key (<<) takes a mapping or a list of mappings, got %s", kind(resolve(c)))
				n.Content[i] = empty(c)
				continue
			}
		}
		if c.Kind != yaml.AliasNode {
			l.checkKeys(c, here)
		}
	}
}

// step is a field or index of a path, linked to its parent's.
type step struct {
	up    *step
	key   string
	index int // -1 for a key
}

func (s *step) path() string {
	if s == nil {
		return ""
	}
	if s.index >= 0 {
		return index(s.up.path(), s.index)
	}
	return join(s.up.path(), s.key)
}

// record notes the line of every value written in the file.
func (l *loader) record(e *entry) bool {
	if _, ok := l.lines[e.path]; !ok && !isNull(resolve(*e.slot)) {
		l.lines[e.path] = e.line
	}
	return true
}

// check prepares the values yaml.v3 cannot report on well (see loader).
func (l *loader) check(e *entry) bool {
	t, sd := base(e.typ), e.parent == targetDiscoveryType && e.key != nil
	switch {
	case isNull(resolve(*e.slot)):
	case sd && e.key.Value == "static_configs":
		l.errorf(e.line, e.path, "unknown field (static targets go under targets)")
		*e.slot = null(*e.slot)
	case sd && strings.HasSuffix(e.key.Value, sdSuffix):
		l.recordSDRedirects(e)
		l.checkSD(e)
	case t == nil:
	case t == httpClientType:
		l.checkHTTPClient(e)
	case hasUnmarshaler(t) && t != targetDiscoveryType:
		l.checkAlone(e)
	default:
		return true
	}
	return false
}

// checkAlone decodes e's value on its own and, if its UnmarshalYAML fails
// (type errors aside: the strict decode reports those), reports the error
// and puts a null in its place.
func (l *loader) checkAlone(e *entry) {
	err := (*e.slot).Decode(reflect.New(base(e.typ)).Interface())
	if te := (*yaml.TypeError)(nil); err != nil && !errors.As(err, &te) {
		l.errs = append(l.errs, fromYAML(err, l.file, e.line, e.path))
		*e.slot = null(*e.slot)
	}
}

// checkHTTPClient resolves the secrets of an http_client_config in a copy
// of its own (a secret's errors do not stop the others from being found),
// then checks it as checkAlone does.
func (l *loader) checkHTTPClient(e *entry) {
	if l.resolved[resolve(*e.slot)] { // reached again through an alias
		return
	}
	c := copyNode(*e.slot)
	l.resolved[c] = true
	*e.slot = c
	l.secrets(c, e.path)
	l.checkAlone(e)
}

// finish applies what needs the decoded config: lines and names kept for
// messages, relative paths, and the HTTP client defaults of a prober.
func (l *loader) finish(cfg *Config) {
	// The push carries credentials: a redirect would take them along.
	cfg.OTLPMetrics.HTTPClientConfig.SetDirectory(l.dir)
	if _, set := l.lines["otlp_metrics.http_client_config.follow_redirects"]; !set {
		cfg.OTLPMetrics.HTTPClientConfig.FollowRedirects = false
	}
	for i, t := range cfg.Targets {
		if t != nil {
			t.Line = l.lines[index("targets", i)]
			l.finishTarget(t, index("targets", i))
		}
	}
	for name, m := range cfg.Modules {
		if m != nil {
			m.Name, m.Line = name, l.lines[join("modules", name)]
		}
	}
	for i, td := range cfg.TargetDiscovery {
		if td != nil {
			td.SDConfigs.SetDirectory(l.dir)
			l.finishSDClients(td, index("target_discovery", i))
			if td.Template != nil {
				l.finishTarget(td.Template, index("target_discovery", i)+".template")
			}
		}
	}
}

// finishTarget resolves *_file paths (knee_file too) against the config's
// directory.
// prometheus/common follows redirects by default; a probe must not (a
// redirected POST comes back as a GET, or from elsewhere). And HTTP/1.1
// unless asked: one stream per connection, as vLLM and llama.cpp serve it,
// so chunk arrivals carry kernel receive times (an HTTP/2 connection
// multiplexes other streams).
func (l *loader) finishTarget(t *Target, path string) {
	for _, hc := range []struct {
		*config.HTTPClientConfig
		path string
	}{{&t.HTTPClientConfig, path + ".http_client_config"}, {t.ServerMetrics.HTTPClientConfig, path + ".server_metrics.http_client_config"}} {
		if hc.HTTPClientConfig == nil {
			continue
		}
		hc.SetDirectory(l.dir)
		if _, set := l.lines[hc.path+".follow_redirects"]; !set {
			hc.FollowRedirects = false
		}
		if _, set := l.lines[hc.path+".enable_http2"]; !set {
			hc.EnableHTTP2 = false
		}
	}
	if t.Capacity != nil {
		t.Capacity.KneeFile = config.JoinDir(l.dir, t.Capacity.KneeFile)
	}
}

func base(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func hasUnmarshaler(t reflect.Type) bool {
	pt := reflect.PointerTo(base(t))
	return pt.Implements(unmarshalerV3) || pt.Implements(unmarshalerV2)
}
