package config

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery/file"
	sdhttp "github.com/prometheus/prometheus/discovery/http"
	"github.com/prometheus/prometheus/discovery/kubernetes"
	"gopkg.in/yaml.v3"

	"github.com/llm-prober/llm-prober/backend"
)

const discoveryYAML = `
global:
  interval: 10s
  location: eu-west-1
modules:
  m:
    messages: [{role: user, content: hi}]
target_discovery:
  - name: pods
    kubernetes_sd_configs:
      - role: pod
        namespaces: {names: [llm]}
        selectors: [{role: pod, label: "app=vllm"}]
    file_sd_configs:
      - files: [targets/*.json]
    http_sd_configs:
      - url: http://127.0.0.1:9999/sd
    relabel_configs:
      - source_labels: [__meta_kubernetes_pod_label_model]
        target_label: __model__
    template:
      modules: [m]
      model: default-model
      labels: {team: a}
      server_metrics: {enabled: true}
`

func TestTargetDiscoveryDecodes(t *testing.T) {
	c := mustLoad(t, discoveryYAML)
	if len(c.Targets) != 0 || len(c.TargetDiscovery) != 1 {
		t.Fatalf("targets %d, discoveries %d", len(c.Targets), len(c.TargetDiscovery))
	}
	if c.Global.Location != "eu-west-1" {
		t.Errorf("location %q", c.Global.Location)
	}
	td := c.TargetDiscovery[0]
	if td.Name != "pods" || td.Line != 9 || len(td.SDConfigs) != 3 || len(td.RelabelConfigs) != 1 {
		t.Fatalf("entry: %+v", td)
	}
	var k8s, fsd, hsd bool
	for _, sc := range td.SDConfigs {
		switch sc := sc.(type) {
		case *kubernetes.SDConfig:
			k8s = sc.Role == kubernetes.RolePod && sc.NamespaceDiscovery.Names[0] == "llm"
		case *file.SDConfig:
			// Relative to the config file's directory, as Prometheus does.
			fsd = sc.Files[0] == "targets/*.json"
		case *sdhttp.SDConfig:
			hsd = sc.URL == "http://127.0.0.1:9999/sd"
		}
	}
	if !k8s || !fsd || !hsd {
		t.Errorf("sd configs: %#v", td.SDConfigs)
	}
	tp := td.Template
	// The template got the same defaults as a static target.
	if tp.Interval != model.Duration(10*time.Second) || tp.Timeout != model.Duration(8*time.Second) ||
		tp.Backend != backend.Auto || tp.ServerMetrics.Path != "/metrics" || tp.Name != "" || tp.URL != "" || tp.Model != "default-model" {
		t.Errorf("template: %+v", tp)
	}
	// /config shows the entry with its sd configs inline.
	out := c.String()
	for _, want := range []string{"target_discovery:", "kubernetes_sd_configs:", "file_sd_configs:", "http_sd_configs:", "relabel_configs:", "location: eu-west-1"} {
		if !strings.Contains(out, want) {
			t.Errorf("redacted config lacks %q:\n%s", want, out)
		}
	}
	var back map[string]any
	if err := yaml.Unmarshal([]byte(out), &back); err != nil {
		t.Fatal(err)
	}
}

func TestTargetDiscoveryErrors(t *testing.T) {
	head := "modules:\n  m:\n    messages: [{role: user, content: hi}]\ntarget_discovery:\n"
	for _, tc := range []struct{ body, want string }{
		{"  - name: a\n    file_sd_configs: [{files: [x.json], refresh_intervall: 1m}]\n    template: {modules: [m]}\n",
			`test.yml:6: target_discovery[0].file_sd_configs[0].refresh_intervall: unknown field (did you mean "refresh_interval"?)`},
		{"  - name: a\n    consul_sd_configs: [{server: x}]\n    template: {modules: [m]}\n",
			`test.yml:6: target_discovery[0].consul_sd_configs: unknown field`},
		{"  - name: a\n    kubernetes_sd_configs: [{role: nodez}]\n    template: {modules: [m]}\n",
			`test.yml:6: target_discovery[0].kubernetes_sd_configs: unknown Kubernetes SD role "nodez"`},
		{"  - name: a\n    file_sd_configs: [{files: [x.json]}]\n    template: {modules: [m], url: http://x}\n",
			`test.yml:7: target_discovery[0].template.url: url comes from relabel_configs`},
		{"  - name: a\n    file_sd_configs: [{files: [x.json]}]\n    template: {modules: [n]}\n",
			`test.yml:7: target_discovery[0].template.modules[0]: unknown module "n"`},
		{"  - name: a\n    file_sd_configs: [{files: [x.json]}]\n    relabel_configs: [{action: replace}]\n    template: {modules: [m]}\n",
			`test.yml:7: target_discovery[0].relabel_configs[0]: relabel configuration for replace action requires 'target_label' value`},
		{"  - name: a\n    template: {modules: [m]}\n",
			`test.yml:5: target_discovery[0]: a target_discovery entry needs at least one *_sd_configs`},
		{"  - name: a\n    file_sd_configs: [{files: [x.json]}]\n    template: {modules: [m]}\n  - name: a\n    file_sd_configs: [{files: [y.json]}]\n    template: {modules: [m]}\n",
			`test.yml:8: target_discovery[1].name: duplicate target_discovery name "a" (first used at line 5)`},
		{"  - name: a\n    file_sd_configs: [{files: [x.json]}]\n    file_sd_configs: [{files: [y.json]}]\n    template: {modules: [m]}\n",
			`test.yml:7: target_discovery[0].file_sd_configs: duplicate field (first set at line 6)`},
	} {
		_, err := Load([]byte(head+tc.body), "test.yml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s\ngot  %v\nwant %s", tc.body, err, tc.want)
		}
	}
}

func TestNewTarget(t *testing.T) {
	td := mustLoad(t, discoveryYAML).TargetDiscovery[0]
	got, err := td.NewTarget(model.LabelSet{"__address__": "10.1.2.3:8000", "__meta_x": "y", "pod": "vllm-0", "__backend__": "vllm"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "10.1.2.3:8000" || got.URL != "http://10.1.2.3:8000" || got.Model != "default-model" || got.Backend != backend.VLLM ||
		got.DiscoveredBy != "pods" || len(got.Labels) != 2 || got.Labels["pod"] != "vllm-0" || got.Labels["team"] != "a" || !got.ServerMetrics.Enabled {
		t.Errorf("target: %+v", got)
	}
	got, err = td.NewTarget(model.LabelSet{"__url__": "https://h/base/", "__target__": "h1", "__model__": "m2"})
	if err != nil || got.URL != "https://h/base" || got.Name != "h1" || got.Model != "m2" {
		t.Errorf("target %+v, %v", got, err)
	}
	for ls, want := range map[string]model.LabelSet{
		"neither __url__ nor __address__ is set":       {"pod": "x"},
		`labels.model: label name "model" is reserved`: {"__address__": "h:1", "model": "x"},
		`backend: unknown backend "vllmx"`:             {"__address__": "h:1", "__backend__": "vllmx"},
		`url: url "ftp://h:1" must start with http`:    {"__address__": "h:1", "__scheme__": "ftp"},
	} {
		if _, err := td.NewTarget(want); err == nil || !strings.HasPrefix(err.Error(), ls) {
			t.Errorf("%v: got %v, want %s", want, err, ls)
		}
	}
	// The template itself is left untouched.
	if len(td.Template.Labels) != 1 || td.Template.Name != "" {
		t.Errorf("template changed: %+v", td.Template)
	}
}

// A discovery's HTTP client takes its secrets from ${ENV} (or files), as a
// target's http_client_config does, each list in a copy of its own: an
// anchor shared with another list keeps its reference.
func TestTargetDiscoveryEnvSecrets(t *testing.T) {
	t.Setenv("LLM_PROBER_TEST_TOKEN", "sd-token-value")
	c := mustLoad(t, `
modules: {m: {messages: [{role: user, content: hi}]}}
target_discovery:
  - name: a
    http_sd_configs: &sd
      - url: http://127.0.0.1:9999/sd
        basic_auth: {username: u, password: "${LLM_PROBER_TEST_TOKEN}"}
    template: {modules: [m]}
  - name: b
    http_sd_configs: *sd
    kubernetes_sd_configs:
      - role: pod
        api_server: https://k8s.example.com
        authorization: {credentials: "${LLM_PROBER_TEST_TOKEN}"}
    template: {modules: [m]}
`)
	var got []string
	for _, td := range c.TargetDiscovery {
		for _, sc := range td.SDConfigs {
			switch sc := sc.(type) {
			case *sdhttp.SDConfig:
				got = append(got, string(sc.HTTPClientConfig.BasicAuth.Password))
			case *kubernetes.SDConfig:
				got = append(got, string(sc.HTTPClientConfig.Authorization.Credentials))
			}
		}
	}
	if strings.Join(got, ",") != "sd-token-value,sd-token-value,sd-token-value" {
		t.Errorf("secrets %q", got)
	}
	if out := c.String(); strings.Contains(out, "sd-token-value") {
		t.Errorf("redacted config shows the secret:\n%s", out)
	}
}
