package config

import (
	"errors"

	"github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"
)

// Redacted marshals the effective configuration (defaults applied) back to
// YAML with every secret shown as <secret>, for /config and debug logs.
// Secrets read from the environment are config.Secret values too, so they
// are hidden the same way.
func (c *Config) Redacted() ([]byte, error) {
	// config.Secret prints its value when this process-wide switch is on.
	if config.MarshalSecretValue {
		return nil, errors.New("refusing to marshal: config.MarshalSecretValue is set")
	}
	return yaml.Marshal(c)
}

// String is the redacted YAML, or the marshalling error.
func (c *Config) String() string {
	b, err := c.Redacted()
	if err != nil {
		return "# " + err.Error() + "\n"
	}
	return string(b)
}
