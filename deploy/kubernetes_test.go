package deploy

import (
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/deploy/internal/promrule"
)

var kustomizations = []string{"kubernetes/base", "kubernetes/example"}

func TestManifestsFitTogether(t *testing.T) {
	for _, dir := range kustomizations {
		t.Run(path.Base(dir), func(t *testing.T) {
			o := build(t, dir)
			sts := o.statefulSet
			if sts == nil {
				t.Fatal("no StatefulSet")
			}
			pod := sts.Spec.Template
			sel := selector(t, sts.Spec.Selector)
			if !sel.Matches(labels.Set(pod.Labels)) {
				t.Errorf("StatefulSet selector %v does not match its pod labels %v", sel, pod.Labels)
			}
			c := container(t, sts)
			checkShards(t, sts, c)
			checkSecurity(t, &pod.Spec, c)
			cfg := checkConfig(t, o, &pod.Spec, c)

			if len(o.services) != 1 || o.services[0].Name != sts.Spec.ServiceName {
				t.Fatalf("want the StatefulSet's governing Service %q, got %d services", sts.Spec.ServiceName, len(o.services))
			}
			svc := o.services[0]
			if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
				t.Errorf("Service selector %v does not match the pods", svc.Spec.Selector)
			}
			for _, p := range svc.Spec.Ports {
				if !hasPort(c, p.TargetPort.String()) {
					t.Errorf("Service port %s targets %s, which the container does not have", p.Name, p.TargetPort.String())
				}
			}
			checkServiceMonitor(t, o, svc)
			checkPolicies(t, o, pod.Labels, c)
			checkEgress(t, o, cfg)
			checkRBAC(t, o, &pod.Spec, nsOr(sts.Namespace), cfg)
			if len(o.rules) != 1 {
				t.Errorf("want one PrometheusRule, got %d", len(o.rules))
			}
		})
	}
}

func selector(t *testing.T, ls *metav1.LabelSelector) labels.Selector {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil || s.Empty() {
		t.Fatalf("selector %v: %v", ls, err)
	}
	return s
}

func container(t *testing.T, sts *appsv1.StatefulSet) *corev1.Container {
	t.Helper()
	cs := sts.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("want one container, got %d", len(cs))
	}
	return &cs[0]
}

func hasPort(c *corev1.Container, nameOrNumber string) bool {
	for _, p := range c.Ports {
		if p.Name == nameOrNumber || strconv.Itoa(int(p.ContainerPort)) == nameOrNumber {
			return true
		}
	}
	return false
}

// arg returns the value of --name=value in the container's args.
func arg(c *corev1.Container, name string) (string, bool) {
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// Replicas and --shard.count agree, and each pod's index is its ordinal.
func checkShards(t *testing.T, sts *appsv1.StatefulSet, c *corev1.Container) {
	count, _ := arg(c, "shard.count")
	if n, err := strconv.Atoi(count); err != nil || sts.Spec.Replicas == nil || int32(n) != *sts.Spec.Replicas {
		t.Errorf("--shard.count=%s but replicas %d", count, ptrVal(sts.Spec.Replicas))
	}
	if idx, _ := arg(c, "shard.index"); idx != "$(POD_NAME)" {
		t.Errorf("--shard.index=%q, want $(POD_NAME)", idx)
	}
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "POD_NAME" })
	if i < 0 || c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.FieldRef == nil || c.Env[i].ValueFrom.FieldRef.FieldPath != "metadata.name" {
		t.Errorf("POD_NAME does not come from metadata.name: %+v", c.Env)
	}
	if sts.Spec.PodManagementPolicy != "Parallel" {
		t.Errorf("podManagementPolicy %q: shards should start together", sts.Spec.PodManagementPolicy)
	}
}

func checkSecurity(t *testing.T, spec *corev1.PodSpec, c *corev1.Container) {
	psc, sc := spec.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod must run as non-root: %+v", psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("container security context: %+v", sc)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources: %+v", c.Resources)
	}
	for name, p := range map[string]*corev1.Probe{"/-/ready": c.ReadinessProbe, "/-/healthy": c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != name || !hasPort(c, p.HTTPGet.Port.String()) {
			t.Errorf("probe on %s: %+v", name, p)
		}
	}
}

// The ConfigMap is mounted where --config.file points, and its config
// passes the same checks as --config.check (config.Load, CheckFiles).
func checkConfig(t *testing.T, o *objects, spec *corev1.PodSpec, c *corev1.Container) *config.Config {
	file, ok := arg(c, "config.file")
	if !ok {
		t.Fatal("no --config.file")
	}
	dir, key := path.Split(file)
	var cmName string
	for _, m := range c.VolumeMounts {
		if strings.TrimSuffix(m.MountPath, "/")+"/" == dir {
			for _, v := range spec.Volumes {
				if v.Name == m.Name && v.ConfigMap != nil {
					cmName = v.ConfigMap.Name
				}
			}
		}
	}
	i := slices.IndexFunc(o.configMaps, func(cm *corev1.ConfigMap) bool { return cm.Name == cmName })
	if i < 0 {
		t.Fatalf("--config.file=%s: no ConfigMap mounted at %s (mounted: %q)", file, dir, cmName)
	}
	data, ok := o.configMaps[i].Data[key]
	if !ok {
		t.Fatalf("ConfigMap %s has no key %s", cmName, key)
	}
	cfg, err := config.Load([]byte(data), key)
	if err != nil {
		t.Fatalf("ConfigMap %s: %v", cmName, err)
	}
	// The rest of --config.check: files the config names must exist
	// (none here, so no Secret has to be mounted for these).
	for _, err := range config.CheckFiles(cfg) {
		t.Errorf("ConfigMap %s: %v", cmName, err)
	}
	if len(cfg.TargetDiscovery) == 0 {
		t.Errorf("ConfigMap %s discovers nothing", cmName)
	}
	return cfg
}

func checkServiceMonitor(t *testing.T, o *objects, svc *corev1.Service) {
	if len(o.serviceMonitors) != 1 {
		t.Fatalf("want one ServiceMonitor, got %d", len(o.serviceMonitors))
	}
	sm := o.serviceMonitors[0]
	if !selector(t, &sm.Spec.Selector).Matches(labels.Set(svc.Labels)) {
		t.Errorf("ServiceMonitor selector %v does not match Service labels %v", sm.Spec.Selector, svc.Labels)
	}
	for _, ep := range sm.Spec.Endpoints {
		if !slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == ep.Port }) {
			t.Errorf("ServiceMonitor endpoint port %q is not a Service port", ep.Port)
		}
	}
	if svc.Spec.ClusterIP != "None" {
		t.Errorf("Service should be headless so every shard is scraped")
	}
}

func checkPolicies(t *testing.T, o *objects, podLabels map[string]string, c *corev1.Container) {
	if len(o.pdbs) != 1 || !selector(t, o.pdbs[0].Spec.Selector).Matches(labels.Set(podLabels)) {
		t.Errorf("PodDisruptionBudget does not select the pods")
	}
	if len(o.netpols) != 1 {
		t.Fatalf("want one NetworkPolicy, got %d", len(o.netpols))
	}
	np := o.netpols[0]
	if !selector(t, &np.Spec.PodSelector).Matches(labels.Set(podLabels)) {
		t.Errorf("NetworkPolicy does not select the pods")
	}
	for _, in := range np.Spec.Ingress {
		for _, p := range in.Ports {
			if p.Port == nil || !hasPort(c, p.Port.String()) {
				t.Errorf("NetworkPolicy admits port %v, which the container does not serve", p.Port)
			}
		}
	}
}

// nsOr is the namespace an object without one gets: default.
func nsOr(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// The PrometheusRule is alerts/*.yml, regenerated: a change to the rule
// files without `go run ./cmd/prometheusrule` fails here.
func TestPrometheusRuleMatchesAlerts(t *testing.T) {
	groups, err := promrule.Groups("../alerts")
	if err != nil {
		t.Fatal(err)
	}
	o := build(t, "kubernetes/base")
	if len(o.rules) != 1 {
		t.Fatalf("want one PrometheusRule, got %d", len(o.rules))
	}
	if !reflect.DeepEqual(o.rules[0].Spec.Groups, groups) {
		t.Fatal("deploy/kubernetes/base/prometheusrule.yaml differs from alerts/*.yml: run `cd deploy && go run ./cmd/prometheusrule`")
	}
	var n int
	for _, g := range groups {
		n += len(g.Rules)
	}
	if n < 10 {
		t.Errorf("only %d rules", n)
	}
}

func ptrVal(p *int32) int32 {
	if p == nil {
		return -1
	}
	return *p
}
