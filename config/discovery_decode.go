package config

import (
	"errors"
	"reflect"
	"strings"
	"sync"

	"github.com/prometheus/prometheus/discovery"
	"gopkg.in/yaml.v3"
)

var targetDiscoveryType = reflect.TypeFor[TargetDiscovery]()

const sdSuffix = "_sd_configs"

// UnmarshalYAML decodes the entry's *_sd_configs with Prometheus's registry,
// as a scrape config's.
func (td *TargetDiscovery) UnmarshalYAML(unmarshal func(any) error) error {
	type plain TargetDiscovery
	return discovery.UnmarshalYAMLWithInlineConfigs((*plain)(td), unmarshal)
}

// sdHolder decodes one *_sd_configs list on its own.
type sdHolder struct {
	Configs discovery.Configs `yaml:"-"`
}

func (h *sdHolder) UnmarshalYAML(unmarshal func(any) error) error {
	return discovery.UnmarshalYAMLWithInlineConfigs(h, unmarshal)
}

// sdTypes maps each *_sd_configs key the registry knows to the list type
// it decodes into (for paths, hints and kinds in errors), as the registry
// shows them to an unmarshal function.
var sdTypes = sync.OnceValue(func() map[string]reflect.Type {
	types := map[string]reflect.Type{}
	_ = discovery.UnmarshalYAMLWithInlineConfigs(&sdHolder{}, func(v any) error {
		t := reflect.TypeOf(v).Elem()
		for i := 0; i < t.NumField(); i++ {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); strings.HasSuffix(name, sdSuffix) {
				types[name] = t.Field(i).Type
			}
		}
		return nil
	})
	return types
})

func sdType(key string) reflect.Type {
	return sdTypes()[key]
}

// sdKeys are the *_sd_configs keys the registry knows.
func sdKeys() []string {
	var keys []string
	for _, name := range discovery.RegisteredConfigNames() {
		if name != "static" {
			keys = append(keys, name+sdSuffix)
		}
	}
	return keys
}

// checkSD resolves the secrets of one *_sd_configs list, in a copy of its
// own, as checkHTTPClient does (a discovery's HTTP client config is inline
// in each item), then decodes it on its own, as checkAlone does: a
// discovery's config checks itself in its UnmarshalYAML.
func (l *loader) checkSD(e *entry) {
	if !l.resolved[resolve(*e.slot)] {
		c := copyNode(*e.slot)
		l.resolved[c] = true
		*e.slot = c
		for i, item := range c.Content {
			if c.Kind == yaml.SequenceNode && item.Kind == yaml.MappingNode {
				l.secrets(item, index(e.path, i))
			}
		}
	}
	one := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{e.key, *e.slot}}
	var h sdHolder
	var te *yaml.TypeError
	switch err := one.Decode(&h); {
	case errors.As(err, &te): // the strict decode reports it
	case err != nil:
		l.errs = append(l.errs, fromYAML(err, l.file, e.line, e.path))
		*e.slot = null(*e.slot)
	}
}
