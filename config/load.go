package config

import (
	"os"
	"path/filepath"
	"reflect"

	"github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"
)

// LoadFile reads, decodes, defaults and validates the file at path.
func LoadFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(data, path)
}

// Load decodes, defaults and validates data. filename is used in error
// messages and relative *_file paths are resolved against its directory.
// Unknown fields are errors; every error is an *Error.
func Load(data []byte, filename string) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		e := fromYAML(err, filename, 1, "")
		return nil, e
	}
	if err := checkBudget(&root, filename); err != nil {
		return nil, err
	}
	d := &decoder{file: filename, dir: filepath.Dir(filename), lines: map[string]int{}}
	cfg := &Config{}
	if n := resolve(&root); !isNull(n) {
		if err := d.decode(n, reflect.ValueOf(cfg).Elem(), ""); err != nil {
			return nil, err
		}
	}
	for i, t := range cfg.Targets {
		if t != nil {
			t.Line = d.lines[index("targets", i)]
		}
	}
	for name, m := range cfg.Modules {
		if m != nil {
			m.Name, m.Line = name, d.lines[join("modules", name)]
		}
	}
	c := &checker{file: filename, lines: d.lines}
	if err := c.config(cfg); err != nil {
		return nil, err
	}
	cfg.src = source{file: filename, lines: fileFieldLines(d.lines)}
	return cfg, nil
}

// preset gives targets the same HTTP client defaults as an explicit
// http_client_config when it is omitted: no redirects and HTTP/1.1 (see
// decodeCustom).
func (t *Target) preset() {
	t.HTTPClientConfig = config.DefaultHTTPClientConfig
	t.HTTPClientConfig.FollowRedirects = false
	t.HTTPClientConfig.EnableHTTP2 = false
}
