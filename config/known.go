package config

import (
	"reflect"

	"gopkg.in/yaml.v3"
)

// checkKnown rejects keys that type t does not have, anywhere below n. It
// guards third-party types decoded by their own UnmarshalYAML, which would
// otherwise ignore typos such as http_client_config.basic_auth.pasword.
// It also records the line of every key it sees for later messages.
func (d *decoder) checkKnown(n *yaml.Node, t reflect.Type, path string) error {
	n = resolve(n)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		known, inline := fields(t)
		seen := map[string]int{}
		for _, p := range pairs(n) {
			fpath := join(path, p.k.Value)
			if err := d.record(p, fpath, seen); err != nil {
				return err
			}
			var ft reflect.Type
			if idx, ok := known[p.k.Value]; ok {
				ft = t.FieldByIndex(idx).Type
			} else if inline != nil {
				ft = t.FieldByIndex(inline).Type.Elem()
			} else {
				return d.unknownField(p.k, path, known)
			}
			if err := d.checkKnown(p.v, ft, fpath); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		seen := map[string]int{}
		for _, p := range pairs(n) {
			fpath := join(path, p.k.Value)
			if err := d.record(p, fpath, seen); err != nil {
				return err
			}
			if err := d.checkKnown(p.v, t.Elem(), fpath); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			if !isNull(resolve(item)) {
				d.lines[index(path, i)] = item.Line
			}
			if err := d.checkKnown(item, t.Elem(), index(path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}
