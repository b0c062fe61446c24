package e2ekit

import "gopkg.in/yaml.v3"

// Rule is one rule of a Prometheus rule file: an alert or a recording
// rule.
type Rule struct {
	Alert       string            `yaml:"alert"`
	Record      string            `yaml:"record"`
	Expr        string            `yaml:"expr"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// ParseRules returns the rules of every group of a Prometheus rule file,
// in file order.
func ParseRules(src []byte) ([]Rule, error) {
	var f struct {
		Groups []struct {
			Rules []Rule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(src, &f); err != nil {
		return nil, err
	}
	var out []Rule
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	return out, nil
}
