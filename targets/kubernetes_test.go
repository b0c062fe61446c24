package targets

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

func pod(name, ip, model string, ready bool) *corev1.Pod {
	cond := corev1.ConditionFalse
	if ready {
		cond = corev1.ConditionTrue
	}
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "llm", UID: types.UID("uid-" + name), Labels: map[string]string{"app": "vllm", "model": model}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "vllm",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8000, Protocol: corev1.ProtocolTCP}}}}},
		Status: corev1.PodStatus{PodIP: ip, Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: cond}}},
	}
}

// Pod discovery with the model from a pod label (label values cannot
// hold a "/", so this suits short served names): vLLM pods by label,
// ready and on the http port only; pods becoming ready or deleted. The
// shipped example itself (model from an annotation, else template.model;
// sharded) runs in kubernetes_example_test.go.
const kubePodSD = `
target_discovery:
  - name: vllm-pods
    kubernetes_sd_configs:
      - role: pod
        api_server: %s
        namespaces: {names: [llm]}
        selectors: [{role: pod, label: "app=vllm"}]
    relabel_configs:
      - source_labels: [__meta_kubernetes_pod_ready]
        regex: "true"
        action: keep
      - source_labels: [__meta_kubernetes_pod_container_port_name]
        regex: http
        action: keep
      - source_labels: [__meta_kubernetes_pod_label_model]
        target_label: __model__
      - source_labels: [__meta_kubernetes_namespace, __meta_kubernetes_pod_name]
        separator: _
        target_label: __target__
      - source_labels: [__meta_kubernetes_pod_name]
        target_label: pod
    template:
      modules: [m]
      backend: vllm
`

func TestKubernetesPodSD(t *testing.T) {
	kube, srv := newFakeKube(t)
	kube.put("/api/v1/namespaces/llm/pods", "a", pod("vllm-a", "10.1.0.1", "llama", true), "ADDED")
	kube.put("/api/v1/namespaces/llm/pods", "b", pod("vllm-b", "10.1.0.2", "llama", false), "ADDED")
	r := startFleet(t, loadConfig(t, t.TempDir(), sprintf(kubePodSD, srv.URL)), Shard{Count: 1})
	got := r.waitFor(t, "llm_vllm-a")
	if tg := got.Targets[0]; tg.URL != "http://10.1.0.1:8000" || tg.Model != "llama" || tg.Labels["pod"] != "vllm-a" {
		t.Errorf("target: %+v", tg)
	}
	// A pod becoming ready starts probing; one deleted stops.
	kube.put("/api/v1/namespaces/llm/pods", "b", pod("vllm-b", "10.1.0.2", "llama", true), "MODIFIED")
	r.waitFor(t, "llm_vllm-a", "llm_vllm-b")
	kube.put("/api/v1/namespaces/llm/pods", "a", pod("vllm-a", "10.1.0.1", "llama", true), "DELETED")
	r.waitFor(t, "llm_vllm-b")
}

// endpointslices: the role for pods behind a Service.
func TestKubernetesEndpointSliceSD(t *testing.T) {
	kube, srv := newFakeKube(t)
	slice := &discoveryv1.EndpointSlice{
		TypeMeta:    metav1.TypeMeta{Kind: "EndpointSlice", APIVersion: "discovery.k8s.io/v1"},
		ObjectMeta:  metav1.ObjectMeta{Name: "vllm-abc", Namespace: "llm", Labels: map[string]string{discoveryv1.LabelServiceName: "vllm"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.2.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}},
			{Addresses: []string{"10.2.0.2"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}},
		},
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8000), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	kube.put("/apis/discovery.k8s.io/v1/namespaces/llm/endpointslices", "vllm-abc", slice, "ADDED")
	cfg := loadConfig(t, t.TempDir(), sprintf(`
target_discovery:
  - name: vllm-service
    kubernetes_sd_configs:
      - role: endpointslice
        api_server: %s
        namespaces: {names: [llm]}
    relabel_configs:
      - source_labels: [__meta_kubernetes_endpointslice_endpoint_conditions_ready, __meta_kubernetes_endpointslice_port_name]
        regex: "true;http"
        action: keep
    template:
      modules: [m]
      model: llama
`, srv.URL))
	r := startFleet(t, cfg, Shard{Count: 1})
	r.waitFor(t, "10.2.0.1:8000")
}

// services: one target per Service port (probing through the Service).
func TestKubernetesServiceSD(t *testing.T) {
	kube, srv := newFakeKube(t)
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "vllm", Namespace: "llm", Labels: map[string]string{"model": "qwen"}},
		Spec:       corev1.ServiceSpec{ClusterIP: "10.96.0.10", Ports: []corev1.ServicePort{{Name: "http", Port: 8000}, {Name: "grpc", Port: 9000}}},
	}
	kube.put("/api/v1/namespaces/llm/services", "vllm", svc, "ADDED")
	cfg := loadConfig(t, t.TempDir(), sprintf(`
target_discovery:
  - name: vllm-services
    kubernetes_sd_configs:
      - role: service
        api_server: %s
        namespaces: {names: [llm]}
    relabel_configs:
      - source_labels: [__meta_kubernetes_service_port_name]
        regex: http
        action: keep
      - source_labels: [__meta_kubernetes_service_label_model]
        target_label: __model__
    template:
      modules: [m]
`, srv.URL))
	r := startFleet(t, cfg, Shard{Count: 1})
	got := r.waitFor(t, "vllm.llm.svc:8000")
	if got.Targets[0].Model != "qwen" {
		t.Errorf("target: %+v", got.Targets[0])
	}
}
