package config

import (
	"reflect"
	"slices"
	"strings"

	"github.com/prometheus/prometheus/discovery"
	"gopkg.in/yaml.v3"
)

var targetDiscoveryType = reflect.TypeFor[TargetDiscovery]()

const sdSuffix = "_sd_configs"

// sdHolder lets Prometheus's registry decode one *_sd_configs list into
// the Config type its discovery registered.
type sdHolder struct {
	Configs discovery.Configs `yaml:"-"`
}

func (h *sdHolder) UnmarshalYAML(unmarshal func(any) error) error {
	return discovery.UnmarshalYAMLWithInlineConfigs(h, unmarshal)
}

// decodeTargetDiscovery decodes the entry's own fields like any struct and
// each *_sd_configs list with Prometheus's registry, keeping this package's
// strictness (unknown keys anywhere are errors) and FILE:LINE: path errors.
func (d *decoder) decodeTargetDiscovery(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return d.kindError(n, path, "a mapping")
	}
	rest := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	var sd []pair
	for _, p := range pairs(n) {
		if strings.HasSuffix(p.k.Value, sdSuffix) {
			sd = append(sd, p)
		} else {
			rest.Content = append(rest.Content, p.k, p.v)
		}
	}
	if err := d.decodeStruct(rest, v, path); err != nil {
		return err
	}
	td := v.Addr().Interface().(*TargetDiscovery)
	seen := map[string]int{}
	for _, p := range sd {
		fpath := join(path, p.k.Value)
		if err := d.record(p, fpath, seen); err != nil {
			return err
		}
		if !slices.Contains(discovery.RegisteredConfigNames(), strings.TrimSuffix(p.k.Value, sdSuffix)) {
			return d.unknownField(p.k, path, d.discoveryKeys())
		}
		cfgs, err := d.decodeSD(p, fpath)
		if err != nil {
			return err
		}
		td.SDConfigs = append(td.SDConfigs, cfgs...)
	}
	td.SDConfigs.SetDirectory(d.dir)
	return nil
}

// decodeSD decodes one *_sd_configs list, then checks its keys against the
// type the registry produced (yaml.v3 would silently drop a typo).
func (d *decoder) decodeSD(p pair, fpath string) (discovery.Configs, error) {
	one := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{p.k, p.v}}
	var h sdHolder
	if err := one.Decode(&h); err != nil {
		return nil, d.narrow(fromYAML(err, d.file, d.line(fpath, p.v), fpath))
	}
	if len(h.Configs) > 0 {
		if err := d.checkKnown(p.v, reflect.SliceOf(reflect.TypeOf(h.Configs[0])), fpath); err != nil {
			return nil, err
		}
	}
	return h.Configs, nil
}

// discoveryKeys are the keys a target_discovery entry accepts, for "did
// you mean" hints.
func (d *decoder) discoveryKeys() map[string][]int {
	known, _ := fields(targetDiscoveryType)
	for _, name := range discovery.RegisteredConfigNames() {
		if name != "static" {
			known[name+sdSuffix] = nil
		}
	}
	return known
}
