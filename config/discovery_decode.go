package config

import (
	"errors"
	"reflect"
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

// sdTypes maps a *_sd_configs key to the list type it decodes into, as
// learnt from decoding it (the registry does not say), for hints.
var sdTypes sync.Map

func sdType(key string) reflect.Type {
	if t, ok := sdTypes.Load(key); ok {
		return t.(reflect.Type)
	}
	return nil
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

// checkSD decodes one *_sd_configs list on its own, as checkAlone does: a
// discovery's config checks itself in its UnmarshalYAML.
func (l *loader) checkSD(e *entry) {
	one := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{e.key, *e.slot}}
	var h sdHolder
	var te *yaml.TypeError
	switch err := one.Decode(&h); {
	case errors.As(err, &te): // the strict decode reports it
	case err != nil:
		l.errs = append(l.errs, fromYAML(err, l.file, e.line, e.path))
		*e.slot = null(*e.slot)
	case len(h.Configs) > 0:
		sdTypes.Store(e.key.Value, reflect.SliceOf(reflect.TypeOf(h.Configs[0])))
	}
}
