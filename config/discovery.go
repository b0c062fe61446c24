package config

import (
	"github.com/prometheus/prometheus/discovery"
	"github.com/prometheus/prometheus/model/relabel"

	// The service discoveries target_discovery entries may use. Each
	// registers its *_sd_configs key with Prometheus's registry; more can
	// be added here at the cost of binary size (kubernetes: see
	// discovery_kubernetes.go).
	_ "github.com/prometheus/prometheus/discovery/file"
	_ "github.com/prometheus/prometheus/discovery/http"
)

// TargetDiscovery is one target_discovery entry: Prometheus service
// discovery finds label sets, relabel_configs turn each into a target's
// name, url, model, backend and labels (see the Label* constants), and
// Template gives everything else.
type TargetDiscovery struct {
	Name string `yaml:"name"`
	// SDConfigs are the *_sd_configs of the entry, decoded by Prometheus's
	// own registry (file, http and kubernetes are compiled in).
	SDConfigs      discovery.Configs `yaml:"-"`
	RelabelConfigs []*relabel.Config `yaml:"relabel_configs,omitempty"`
	// Template is a target without name and url: modules, interval,
	// timeout, http_client_config, server_metrics, and defaults for model,
	// backend and labels. Its defaults are applied at load time.
	Template *Target `yaml:"template"`
	// MaxTargets caps the targets the entry makes, all shards together;
	// the excess, last by name, is dropped and counted (reason limit).
	// Zero means DefaultDiscoveryMaxTargets.
	MaxTargets int `yaml:"max_targets,omitempty"`

	Line int `yaml:"-"`
}

// DefaultDiscoveryMaxTargets is a target_discovery entry's max_targets
// when it sets none: what one replica holds in its memory budget.
const DefaultDiscoveryMaxTargets = 10_000

// The labels relabel_configs set to describe a discovered target. Labels
// not starting with "__" become the target's labels (llm_prober_target_info).
const (
	// LabelURL is the target's base URL; when empty, the URL is
	// LabelScheme://LabelAddress.
	LabelURL = "__url__"
	// LabelAddress is host:port, as Prometheus's discoveries set it.
	LabelAddress = "__address__"
	// LabelScheme is http (the default set before relabelling) or https.
	LabelScheme = "__scheme__"
	// LabelTargetName is the target label; the default is the address.
	LabelTargetName = "__target__"
	// LabelModel and LabelBackend override the template's.
	LabelModel   = "__model__"
	LabelBackend = "__backend__"
)

// MarshalYAML shows the entry with its *_sd_configs inline, as in the file,
// for /config (secrets print as <secret>).
func (td TargetDiscovery) MarshalYAML() (any, error) {
	type plain TargetDiscovery
	return discovery.MarshalYAMLWithInlineConfigs((*plain)(&td))
}
