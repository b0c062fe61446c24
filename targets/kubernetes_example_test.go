package targets

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/llm-prober/llm-prober/config"
)

// The shipped example, deploy/kubernetes/example: its llm-prober.yml (the
// file kustomize's configMapGenerator puts in the ConfigMap) and its
// shard count.
const (
	exampleDir    = "../deploy/kubernetes/example"
	exampleConfig = exampleDir + "/llm-prober.yml"
	exampleShards = exampleDir + "/shards.yaml"
	modelNote     = "llm-prober.io/model"
)

// exampleConfigAt loads the example's config with every
// kubernetes_sd_config pointed at apiServer (in the cluster it uses the
// pod's service account instead); edit may change the YAML first.
func exampleConfigAt(t *testing.T, apiServer string, edit func(td *yaml.Node)) *config.Config {
	t.Helper()
	b, err := os.ReadFile(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	tds := child(t, doc.Content[0], "target_discovery")
	if len(tds.Content) == 0 {
		t.Fatalf("%s: no target_discovery", exampleConfig)
	}
	n := 0
	for _, td := range tds.Content {
		if edit != nil {
			edit(td)
		}
		sds := child(t, td, "kubernetes_sd_configs")
		for _, sd := range sds.Content {
			sd.Content = append(sd.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Value: "api_server"},
				&yaml.Node{Kind: yaml.ScalarNode, Value: apiServer})
			n++
		}
	}
	if n == 0 {
		t.Fatalf("%s: no kubernetes_sd_configs", exampleConfig)
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "llm-prober.yml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// child is the value of key in mapping m.
func child(t *testing.T, m *yaml.Node, key string) *yaml.Node {
	t.Helper()
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	t.Fatalf("%s: no %s at line %d", exampleConfig, key, m.Line)
	return nil
}

// exampleShardCount is --shard.count in the example's shards.yaml.
func exampleShardCount(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(exampleShards)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`--shard\.count=(\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no --shard.count", exampleShards)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// vllmPod is a pod as vLLM's usual Deployment makes it: label
// app.kubernetes.io/name=vllm, container port http 8000; model, when not
// empty, is its llm-prober.io/model annotation.
func vllmPod(name, ip, model string, ready bool) *corev1.Pod {
	p := pod(name, ip, "", ready)
	p.Labels = map[string]string{"app.kubernetes.io/name": "vllm"}
	p.Spec.NodeName = "node-" + name
	if model != "" {
		p.Annotations = map[string]string{modelNote: model}
	}
	return p
}

// The example's own config, as shipped, against vLLM pods on the fake API
// server: pods with the annotation are probed with its model, those
// without with template.model; not-ready pods and pods without the vLLM
// label are not probed; every target is probed by exactly one of the
// example's shards, the one Owner names.
func TestKubernetesExampleConfig(t *testing.T) {
	kube, srv := newFakeKube(t)
	const pods = "/api/v1/namespaces/llm/pods"
	annotated := map[string]string{
		"vllm-llama-0": "meta-llama/Llama-3.1-8B-Instruct",
		"vllm-qwen-0":  "Qwen/Qwen2.5-7B-Instruct",
		"vllm-qwen-1":  "Qwen/Qwen2.5-7B-Instruct",
	}
	plain := []string{"vllm-0", "vllm-1", "vllm-2"}
	ips := map[string]string{}
	i := 0
	add := func(name, model string) {
		i++
		ips[name] = "10.1.0." + strconv.Itoa(i)
		kube.put(pods, name, vllmPod(name, ips[name], model, true), "ADDED")
	}
	for name, model := range annotated {
		add(name, model)
	}
	for _, name := range plain {
		add(name, "")
	}
	// Dropped by relabel_configs: not ready (loading its weights).
	kube.put(pods, "vllm-loading", vllmPod("vllm-loading", "10.1.1.1", "", false), "ADDED")
	// Not selected (the API server filters by label): not a vLLM pod.
	other := pod("redis-0", "10.1.2.1", "", true)
	other.Labels = map[string]string{"app.kubernetes.io/name": "redis"}
	kube.put(pods, "redis-0", other, "ADDED")

	cfg := exampleConfigAt(t, srv.URL, nil)
	fallback := cfg.TargetDiscovery[0].Template.Model
	if fallback == "" {
		t.Fatalf("%s: no template.model for pods without the %s annotation", exampleConfig, modelNote)
	}
	wantModel := map[string]string{}
	for name, model := range annotated {
		wantModel[name] = model
	}
	for _, name := range plain {
		wantModel[name] = fallback
	}

	count := exampleShardCount(t)
	if count < 2 {
		t.Fatalf("%s: --shard.count=%d, want a sharded example", exampleShards, count)
	}
	byShard := make([][]string, count)
	for name := range wantModel {
		o := Owner(name, count)
		byShard[o] = append(byShard[o], name)
	}
	probed := map[string]int{}
	for idx := range count {
		if len(byShard[idx]) == 0 {
			t.Fatalf("shard %d owns none of %v: pick pod names that spread", idx, wantModel)
		}
		r := startFleet(t, cfg, Shard{Count: count, Index: idx})
		got := r.waitFor(t, byShard[idx]...)
		for _, tg := range got.Targets {
			probed[tg.Name]++
			if want := "http://" + ips[tg.Name] + ":8000"; tg.URL != want {
				t.Errorf("%s: url %s, want %s", tg.Name, tg.URL, want)
			}
			if tg.Model != wantModel[tg.Name] {
				t.Errorf("%s: model %q, want %q", tg.Name, tg.Model, wantModel[tg.Name])
			}
			if len(tg.Labels) != 2 || string(tg.Labels["pod"]) != tg.Name || string(tg.Labels["node"]) != "node-"+tg.Name {
				t.Errorf("%s: labels %v, want pod and node", tg.Name, tg.Labels)
			}
			if tg.Backend != "vllm" || len(tg.Modules) != 1 || tg.Modules[0] != "chat" || tg.DiscoveredBy != "vllm-pods" {
				t.Errorf("%s: backend %s, modules %v, discovered by %s", tg.Name, tg.Backend, tg.Modules, tg.DiscoveredBy)
			}
		}
		// Every shard sees the whole fleet: 6 valid, the not-ready one
		// dropped by relabelling, none invalid.
		waitMetric(t, r, "llm_prober_discovery_targets", "discovery=vllm-pods", float64(len(wantModel)))
		waitMetric(t, r, "llm_prober_discovery_dropped_targets", "discovery=vllm-pods,reason=relabel", 1)
		if v := r.metric(t, "llm_prober_discovery_dropped_targets", "discovery=vllm-pods,reason=relabel"); v != 1 {
			t.Errorf("shard %d: dropped by relabel: %v, want 1 (the pod not ready)", idx, v)
		}
		if v, _ := r.find("llm_prober_discovery_dropped_targets", "discovery=vllm-pods,reason=invalid"); v != 0 {
			t.Errorf("shard %d: invalid: %v, want 0", idx, v)
		}
		if v := r.metric(t, "llm_prober_shard_targets", "shard="+strconv.Itoa(idx)+",shard_count="+strconv.Itoa(count)); v != float64(len(byShard[idx])) {
			t.Errorf("shard %d: llm_prober_shard_targets %v, want %d", idx, v, len(byShard[idx]))
		}
	}
	for name := range wantModel {
		if probed[name] != 1 {
			t.Errorf("%s probed by %d shards, want 1", name, probed[name])
		}
	}
}

// Without template.model, the example's pods without the annotation make
// no target: counted as invalid (what LLMProberDiscoveredTargetsInvalid
// alerts on), while the annotated ones are still probed.
func TestKubernetesExampleConfigWithoutTemplateModel(t *testing.T) {
	kube, srv := newFakeKube(t)
	const pods = "/api/v1/namespaces/llm/pods"
	kube.put(pods, "vllm-a", vllmPod("vllm-a", "10.1.0.1", "meta-llama/Llama-3.1-8B-Instruct", true), "ADDED")
	kube.put(pods, "vllm-b", vllmPod("vllm-b", "10.1.0.2", "", true), "ADDED")
	cfg := exampleConfigAt(t, srv.URL, func(td *yaml.Node) {
		tmpl := child(t, td, "template")
		for i := 0; i+1 < len(tmpl.Content); i += 2 {
			if tmpl.Content[i].Value == "model" {
				tmpl.Content = append(tmpl.Content[:i], tmpl.Content[i+2:]...)
				return
			}
		}
		t.Fatalf("%s: template has no model", exampleConfig)
	})
	r := startFleet(t, cfg, Shard{Count: 1})
	got := r.waitFor(t, "vllm-a")
	if got.Targets[0].Model != "meta-llama/Llama-3.1-8B-Instruct" {
		t.Errorf("target: %+v", got.Targets[0])
	}
	waitMetric(t, r, "llm_prober_discovery_dropped_targets", "discovery=vllm-pods,reason=invalid", 1)
}
