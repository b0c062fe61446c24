package deploy

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/llm-prober/llm-prober/config"
)

// vllmPort is vLLM's default port (vllm serve --port); the config finds
// the container port named http, so this is the one the example's vLLM
// pods are assumed to serve on.
const vllmPort = 8000

// peer is an egress destination: a pod in a namespace, or (ns == "")
// somewhere that is not a pod selected by any namespace, such as the API
// server or an external DNS.
type peer struct {
	ns        string
	podLabels map[string]string
}

func matches(sel *metav1.LabelSelector, set map[string]string) bool {
	if sel == nil {
		return true
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err == nil && s.Matches(labels.Set(set))
}

// egressAllows is the NetworkPolicy API's rule: some egress rule has a
// port that matches (no ports: all) and a peer that matches (no peers:
// everywhere). ipBlock peers are not evaluated: they never match here.
func egressAllows(np *networkingv1.NetworkPolicy, port int32, proto corev1.Protocol, to peer) bool {
	for _, r := range np.Spec.Egress {
		portOK := len(r.Ports) == 0
		for _, p := range r.Ports {
			pr := corev1.ProtocolTCP
			if p.Protocol != nil {
				pr = *p.Protocol
			}
			end := p.Port.IntVal
			if p.EndPort != nil {
				end = *p.EndPort
			}
			if pr == proto && p.Port != nil && p.Port.IntVal <= port && port <= end {
				portOK = true
			}
		}
		if !portOK {
			continue
		}
		if len(r.To) == 0 {
			return true
		}
		for _, p := range r.To {
			if p.IPBlock != nil || to.ns == "" {
				continue
			}
			nsOK := p.NamespaceSelector != nil && matches(p.NamespaceSelector, map[string]string{corev1.LabelMetadataName: to.ns}) ||
				p.NamespaceSelector == nil && to.ns == nsOr(np.Namespace)
			if nsOK && matches(p.PodSelector, to.podLabels) {
				return true
			}
		}
	}
	return false
}

// The NetworkPolicy lets the prober reach DNS and the API server from
// anywhere, and vLLM's port in every namespace its discovery reads; when
// discovery is confined to namespaces, the inference port is not open to
// others.
func checkEgress(t *testing.T, o *objects, cfg *config.Config) {
	t.Helper()
	np := o.netpols[0]
	anywhere := peer{}
	for _, c := range []struct {
		port  int32
		proto corev1.Protocol
	}{{53, corev1.ProtocolUDP}, {53, corev1.ProtocolTCP}, {443, corev1.ProtocolTCP}, {6443, corev1.ProtocolTCP}} {
		if !egressAllows(np, c.port, c.proto, anywhere) {
			t.Errorf("NetworkPolicy: no egress to %d/%s (DNS, API server)", c.port, c.proto)
		}
	}
	vllm := map[string]string{"app.kubernetes.io/name": "vllm"}
	confined := true
	for _, a := range needs(t, cfg, nsOr(np.Namespace)) {
		if a.resource != "pods" {
			continue
		}
		if a.namespace == "" {
			confined = false
			if !egressAllows(np, vllmPort, corev1.ProtocolTCP, anywhere) {
				t.Errorf("NetworkPolicy: discovery spans all namespaces but egress to %d is not open everywhere", vllmPort)
			}
			continue
		}
		if !egressAllows(np, vllmPort, corev1.ProtocolTCP, peer{a.namespace, vllm}) {
			t.Errorf("NetworkPolicy: no egress to vLLM pods (port %d) in namespace %s, where discovery finds them", vllmPort, a.namespace)
		}
	}
	if confined && egressAllows(np, vllmPort, corev1.ProtocolTCP, peer{"kube-system", vllm}) {
		t.Errorf("NetworkPolicy: discovery is confined to namespaces, but port %d is open to others", vllmPort)
	}
}
