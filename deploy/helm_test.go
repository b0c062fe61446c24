package deploy

import (
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/llm-prober/llm-prober/config"
)

const chartDir = "helm/llm-prober"

// helmCases are the values files the chart is rendered and linted with
// ("" is the chart's defaults).
var helmCases = []string{"", "testdata/helm/sharded.yaml", "testdata/helm/minimal.yaml"}

// helmValues reads a values file ("": none).
func helmValues(t *testing.T, file string) map[string]any {
	t.Helper()
	if file == "" {
		return map[string]any{}
	}
	v, err := chartutil.ReadValuesFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// render renders the chart as `helm template llm-prober -n llm-prober`
// with Helm's own engine (strict: a missing value fails) and decodes
// every object strictly into its upstream type, as build does for
// kustomize.
func render(t *testing.T, valuesFile string) *objects {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := chartutil.ToRenderValues(chrt, helmValues(t, valuesFile),
		chartutil.ReleaseOptions{Name: "llm-prober", Namespace: "llm-prober", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.Engine{Strict: true}.Render(chrt, vals)
	if err != nil {
		t.Fatalf("render with %q: %v", valuesFile, err)
	}
	names := make([]string, 0, len(out))
	for name := range out {
		names = append(names, name)
	}
	sort.Strings(names)
	o := &objects{}
	for _, name := range names {
		if strings.HasSuffix(name, ".tpl") {
			continue
		}
		for _, doc := range strings.Split(out[name], "\n---\n") {
			if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(doc), "---")) == "" {
				continue
			}
			var tm struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := o.add(tm.APIVersion+" "+tm.Kind, []byte(doc)); err != nil {
				t.Errorf("%s (%q): %s %s: %v", name, valuesFile, tm.APIVersion, tm.Kind, err)
			}
		}
	}
	return o
}

// TestHelmLint runs Helm's linter (helm lint) with every values file: no
// error or warning.
func TestHelmLint(t *testing.T) {
	for _, file := range helmCases {
		l := lint.All(chartDir, helmValues(t, file), "llm-prober", false)
		for _, m := range l.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("helm lint (values %q): %s", file, m)
			}
		}
	}
}

// TestHelmChart renders the chart with every values file and checks what
// the kustomize tests check: the objects fit together, the shards match
// the replicas, the pods are locked down, the config loads, the Service,
// ServiceMonitor, policies and RBAC reach what they must, and the options
// add or leave out their objects.
func TestHelmChart(t *testing.T) {
	for _, file := range helmCases {
		name := "defaults"
		if file != "" {
			name = strings.TrimSuffix(path.Base(file), ".yaml")
		}
		t.Run(name, func(t *testing.T) {
			vals := helmValues(t, file)
			o := render(t, file)
			sts := o.statefulSet
			if sts == nil {
				t.Fatal("no StatefulSet")
			}
			pod := sts.Spec.Template
			if !selector(t, sts.Spec.Selector).Matches(labels.Set(pod.Labels)) {
				t.Errorf("StatefulSet selector does not match its pod labels %v", pod.Labels)
			}
			c := container(t, sts)
			checkShards(t, sts, c)
			checkSecurity(t, &pod.Spec, c)
			cfg := helmConfig(t, o, &pod.Spec, c)
			if len(o.services) != 1 || o.services[0].Name != sts.Spec.ServiceName {
				t.Fatalf("want the StatefulSet's governing Service %q, got %d services", sts.Spec.ServiceName, len(o.services))
			}
			svc := o.services[0]
			if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
				t.Errorf("Service selector %v does not match the pods", svc.Spec.Selector)
			}
			want := func(key string) bool { // an option's enabled/create, default true
				m, _ := vals[key].(map[string]any)
				v, ok := m["enabled"]
				if !ok {
					v, ok = m["create"]
				}
				return !ok || v == true
			}
			if want("serviceMonitor") {
				checkServiceMonitor(t, o, svc)
			} else if len(o.serviceMonitors) != 0 {
				t.Errorf("serviceMonitor.enabled false, but %d ServiceMonitors", len(o.serviceMonitors))
			}
			if want("networkPolicy") {
				checkPolicies(t, o, pod.Labels, c)
				checkEgress(t, o, cfg)
			} else if len(o.netpols) != 0 {
				t.Errorf("networkPolicy.enabled false, but %d NetworkPolicies", len(o.netpols))
			}
			if want("rbac") {
				checkRBAC(t, o, &pod.Spec, nsOr(sts.Namespace), cfg)
			} else if len(o.clusterRoles)+len(o.clusterBindings) != 0 {
				t.Errorf("rbac.create false, but a ClusterRole or binding")
			}
			if n := len(o.rules); n != map[bool]int{true: 1, false: 0}[want("prometheusRule")] {
				t.Errorf("%d PrometheusRules", n)
			}
			dashboards := 0
			for _, cm := range o.configMaps {
				if cm.Labels["grafana_dashboard"] == "1" {
					dashboards++
				}
			}
			if dashboards != map[bool]int{true: 3, false: 0}[want("dashboards")] {
				t.Errorf("%d dashboard ConfigMaps", dashboards)
			}
			if n := len(o.pdbs); n != map[bool]int{true: 1, false: 0}[want("podDisruptionBudget")] {
				t.Errorf("%d PodDisruptionBudgets", n)
			}
		})
	}
}

// helmConfig loads the config the pods mount, and checks that every file
// it names lies in a mounted Secret that has that key.
func helmConfig(t *testing.T, o *objects, spec *corev1.PodSpec, c *corev1.Container) *config.Config {
	t.Helper()
	file, _ := arg(c, "config.file")
	dir, key := path.Split(file)
	var data string
	for _, m := range c.VolumeMounts {
		for _, v := range spec.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil && strings.TrimSuffix(m.MountPath, "/")+"/" == dir {
				for _, cm := range o.configMaps {
					if cm.Name == v.ConfigMap.Name {
						data = cm.Data[key]
					}
				}
			}
		}
	}
	if data == "" {
		t.Fatalf("no ConfigMap with %s mounted at %s", key, dir)
	}
	cfg, err := config.Load([]byte(data), key)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range config.CheckFiles(cfg) {
		// Unreadable here: it must be a key of a Secret mounted there.
		msg := err.Error()
		found := false
		for _, m := range c.VolumeMounts {
			for _, v := range spec.Volumes {
				if v.Name != m.Name || v.Secret == nil || !strings.Contains(msg, strings.TrimSuffix(m.MountPath, "/")+"/") {
					continue
				}
				for _, s := range o.secrets {
					if s.Name == v.Secret.SecretName {
						for k := range s.StringData {
							found = found || strings.Contains(msg, m.MountPath+"/"+k)
						}
					}
				}
				found = found || (len(o.secrets) == 0 && v.Secret.SecretName != "") // an existing Secret
			}
		}
		if !found {
			t.Errorf("config: %v (and no mounted Secret holds it)", err)
		}
	}
	return cfg
}

// TestHelmAgreesWithKustomize: with its defaults the chart runs what the
// kustomize base runs (the container but for its image tag source, the
// config, the rules, the dashboards, the ServiceMonitor endpoint, the
// network policy's rules, RBAC and the disruption budget).
func TestHelmAgreesWithKustomize(t *testing.T) {
	h, k := render(t, ""), build(t, "kubernetes/base")
	same := func(what string, a, b any) {
		t.Helper()
		if !reflect.DeepEqual(a, b) {
			ya, _ := yaml.Marshal(a)
			yb, _ := yaml.Marshal(b)
			t.Errorf("%s differs:\nhelm:\n%s\nkustomize:\n%s", what, ya, yb)
		}
	}
	hc, kc := container(t, h.statefulSet), container(t, k.statefulSet)
	same("image", hc.Image, kc.Image)
	same("args", hc.Args, kc.Args)
	same("ports", hc.Ports, kc.Ports)
	same("probes", []any{hc.ReadinessProbe, hc.LivenessProbe}, []any{kc.ReadinessProbe, kc.LivenessProbe})
	same("resources", hc.Resources, kc.Resources)
	same("securityContext", hc.SecurityContext, kc.SecurityContext)
	same("pod securityContext", h.statefulSet.Spec.Template.Spec.SecurityContext, k.statefulSet.Spec.Template.Spec.SecurityContext)
	same("replicas", h.statefulSet.Spec.Replicas, k.statefulSet.Spec.Replicas)
	same("podManagementPolicy", h.statefulSet.Spec.PodManagementPolicy, k.statefulSet.Spec.PodManagementPolicy)
	data := func(o *objects, key string) map[string]string {
		out := map[string]string{}
		for _, cm := range o.configMaps {
			for k, v := range cm.Data {
				if strings.HasSuffix(k, key) {
					out[k] = v
				}
			}
		}
		return out
	}
	same("config", data(h, ".yml"), data(k, ".yml"))
	kd := build(t, withComponents(t, "https://grafana.example.com", "https://github.com/llm-prober/llm-prober/blob/main/docs"))
	same("dashboards", data(h, ".json"), data(kd, ".json"))
	if len(h.rules) != 1 || len(k.rules) != 1 {
		t.Fatalf("PrometheusRules: helm %d, kustomize %d", len(h.rules), len(k.rules))
	}
	same("PrometheusRule spec", h.rules[0].Spec, k.rules[0].Spec)
	same("ServiceMonitor endpoints", h.serviceMonitors[0].Spec.Endpoints, k.serviceMonitors[0].Spec.Endpoints)
	same("NetworkPolicy rules", []any{h.netpols[0].Spec.Ingress, h.netpols[0].Spec.Egress, h.netpols[0].Spec.PolicyTypes},
		[]any{k.netpols[0].Spec.Ingress, k.netpols[0].Spec.Egress, k.netpols[0].Spec.PolicyTypes})
	same("ClusterRole rules", h.clusterRoles[0].Rules, k.clusterRoles[0].Rules)
	same("PodDisruptionBudget maxUnavailable", h.pdbs[0].Spec.MaxUnavailable, k.pdbs[0].Spec.MaxUnavailable)
}

// TestHelmChartCopies: the chart's files are the repository's (a chart
// reads no file outside its directory): its config is the kustomize
// base's, its rules alerts/*.yml, its dashboards dashboards/*.json, and
// its appVersion VERSION.
func TestHelmChartCopies(t *testing.T) {
	pairs := [][2]string{{"kubernetes/base/llm-prober.yml", "files/llm-prober.yml"}}
	for _, f := range []string{"llm-prober-rules.yml", "llm-prober-alerts.yml"} {
		pairs = append(pairs, [2]string{"../alerts/" + f, "files/rules/" + f})
	}
	dash, err := filepath.Glob("../dashboards/*.json")
	if err != nil || len(dash) != 3 {
		t.Fatalf("dashboards: %v %v", dash, err)
	}
	for _, f := range dash {
		pairs = append(pairs, [2]string{f, "files/dashboards/" + filepath.Base(f)})
	}
	for _, p := range pairs {
		a, err := os.ReadFile(p[0])
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(chartDir, p[1]))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s/%s is not a copy of %s (%v): run cd dashboards && go generate ./..., or copy it", chartDir, p[1], p[0], err)
		}
	}
	v, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(v)); chrt.Metadata.AppVersion != want || chrt.Metadata.Version != want {
		t.Errorf("Chart.yaml version %s, appVersion %s; want VERSION %s", chrt.Metadata.Version, chrt.Metadata.AppVersion, want)
	}
	if files := chrt.Files; !slices.ContainsFunc(files, func(f *chart.File) bool { return f.Name == "files/llm-prober.yml" }) {
		t.Error("the chart does not package files/llm-prober.yml")
	}
}
