package deploy

import (
	"os"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// operatorSelects is prometheus-operator's choice of a ServiceMonitor or
// PrometheusRule for a Prometheus: a nil selector selects none, an empty
// one all; a nil namespace selector means the Prometheus's own namespace
// only.
func operatorSelects(t *testing.T, sel, nsSel *metav1.LabelSelector, promNS string, obj metav1.ObjectMeta) bool {
	t.Helper()
	if sel == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	ns := nsOr(obj.Namespace)
	if nsSel == nil {
		return ns == promNS && s.Matches(labels.Set(obj.Labels))
	}
	n, err := metav1.LabelSelectorAsSelector(nsSel)
	if err != nil {
		t.Fatal(err)
	}
	return n.Matches(labels.Set{corev1.LabelMetadataName: ns}) && s.Matches(labels.Set(obj.Labels))
}

// kube-prometheus-stack's default Prometheus scrapes the example's
// ServiceMonitor and loads its PrometheusRule (the example's
// prometheus-labels.yaml adds release: kube-prometheus-stack); the base
// alone, without that label, would be ignored silently.
func TestExampleSelectedByPrometheus(t *testing.T) {
	b, err := os.ReadFile("testdata/prometheus-kube-prometheus-stack.yaml")
	if err != nil {
		t.Fatal(err)
	}
	prom, err := strict[monitoringv1.Prometheus](b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		want bool
	}{{"kubernetes/example", true}, {"kubernetes/base", false}} {
		o := build(t, c.dir)
		if len(o.serviceMonitors) != 1 || len(o.rules) != 1 {
			t.Fatalf("%s: %d ServiceMonitors, %d PrometheusRules", c.dir, len(o.serviceMonitors), len(o.rules))
		}
		sm, rule := o.serviceMonitors[0], o.rules[0]
		if got := operatorSelects(t, prom.Spec.ServiceMonitorSelector, prom.Spec.ServiceMonitorNamespaceSelector, prom.Namespace, sm.ObjectMeta); got != c.want {
			t.Errorf("%s: Prometheus selects ServiceMonitor (labels %v): %v, want %v", c.dir, sm.Labels, got, c.want)
		}
		if got := operatorSelects(t, prom.Spec.RuleSelector, prom.Spec.RuleNamespaceSelector, prom.Namespace, rule.ObjectMeta); got != c.want {
			t.Errorf("%s: Prometheus selects PrometheusRule (labels %v): %v, want %v", c.dir, rule.Labels, got, c.want)
		}
		// Only those two kinds get the label.
		if c.want {
			if _, ok := o.statefulSet.Labels["release"]; ok {
				t.Errorf("%s: the release label reached the StatefulSet", c.dir)
			}
		}
	}
}

// The image the manifests run is the one scripts/release.sh builds and
// pushes for this version: ghcr.io/llm-prober/llm-prober:$(cat VERSION).
func TestImageIsThisVersion(t *testing.T) {
	v, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	want := "ghcr.io/llm-prober/llm-prober:" + strings.TrimSpace(string(v))
	for _, dir := range kustomizations {
		o := build(t, dir)
		if got := container(t, o.statefulSet).Image; got != want {
			t.Errorf("%s: image %s, want %s (base/statefulset.yaml's image tag is VERSION)", dir, got, want)
		}
	}
}
