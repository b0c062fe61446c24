// Package promrule renders alerts/*.yml, the rule files Prometheus loads,
// as the prometheus-operator PrometheusRule in deploy/kubernetes/base.
package promrule

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

const header = `# GENERATED from alerts/*.yml by deploy/cmd/prometheusrule; do not edit.
# Regenerate: cd deploy && go run ./cmd/prometheusrule
`

// ruleFile is a Prometheus rule file.
type ruleFile struct {
	Groups []monitoringv1.RuleGroup `json:"groups"`
}

// Groups decodes every rule file in dir (files with a top-level groups:,
// in name order) strictly into the operator's RuleGroup type.
func Groups(dir string) ([]monitoringv1.RuleGroup, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []monitoringv1.RuleGroup
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var probe map[string]any
		if err := yaml.Unmarshal(b, &probe); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if _, ok := probe["groups"]; !ok {
			continue // not a rule file (alertmanager-example.yml)
		}
		var rf ruleFile
		if err := yaml.UnmarshalStrict(b, &rf); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, rf.Groups...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rule groups in %s/*.yml", dir)
	}
	return out, nil
}

// Render returns the PrometheusRule manifest for the rule files in dir.
func Render(dir string) ([]byte, error) {
	groups, err := Groups(dir)
	if err != nil {
		return nil, err
	}
	pr := monitoringv1.PrometheusRule{
		TypeMeta:   metav1.TypeMeta{APIVersion: "monitoring.coreos.com/v1", Kind: "PrometheusRule"},
		ObjectMeta: metav1.ObjectMeta{Name: "llm-prober"},
		Spec:       monitoringv1.PrometheusRuleSpec{Groups: groups},
	}
	b, err := yaml.Marshal(pr)
	if err != nil {
		return nil, err
	}
	// metav1 marshals an empty creationTimestamp as null; drop it and the
	// empty status so the file is what one would write by hand.
	b = bytes.Replace(b, []byte("  creationTimestamp: null\n"), nil, 1)
	return append([]byte(header), b...), nil
}
