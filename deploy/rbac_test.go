package deploy

import (
	"slices"
	"testing"

	"github.com/prometheus/prometheus/discovery/kubernetes"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/llm-prober/llm-prober/config"
)

// access is what a kubernetes_sd_config reads: list and watch of a
// resource, in a namespace ("" for all).
type access struct{ namespace, group, resource string }

// resources are what each kubernetes_sd_configs role lists and watches
// (Prometheus's discovery/kubernetes informers).
var resources = map[kubernetes.Role][][2]string{
	kubernetes.RolePod:           {{"", "pods"}},
	kubernetes.RoleService:       {{"", "services"}},
	kubernetes.RoleEndpoint:      {{"", "endpoints"}, {"", "pods"}, {"", "services"}},
	kubernetes.RoleEndpointSlice: {{"discovery.k8s.io", "endpointslices"}, {"", "pods"}, {"", "services"}},
	kubernetes.RoleIngress:       {{"networking.k8s.io", "ingresses"}},
}

// needs derives the RBAC the config's kubernetes_sd_configs need from the
// config itself, so that narrowing or widening discovery without the RBAC
// fails here rather than as a 403 in the pod's log.
func needs(t *testing.T, cfg *config.Config, ownNS string) []access {
	var out []access
	for _, td := range cfg.TargetDiscovery {
		for _, sd := range td.SDConfigs {
			k, ok := sd.(*kubernetes.SDConfig)
			if !ok {
				continue
			}
			nss := slices.Clone(k.NamespaceDiscovery.Names)
			if k.NamespaceDiscovery.IncludeOwnNamespace {
				nss = append(nss, ownNS)
			}
			if len(nss) == 0 {
				nss = []string{""}
			}
			rs, ok := resources[k.Role]
			if !ok {
				t.Fatalf("discovery %s: role %s: no RBAC rule known", td.Name, k.Role)
			}
			if k.AttachMetadata.Node {
				out = append(out, access{"", "", "nodes"})
			}
			for _, ns := range nss {
				for _, r := range rs {
					out = append(out, access{ns, r[0], r[1]})
				}
			}
		}
	}
	return out
}

func allows(rules []rbacv1.PolicyRule, group, resource string) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) &&
			slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "watch")
	})
}

// The pods run as a ServiceAccount in their namespace that is granted,
// through ClusterRoleBindings or RoleBindings in the right namespaces,
// list and watch of everything the config's discovery reads; every
// binding's role exists; and when discovery is confined to namespaces, no
// cluster-wide grant is made.
func checkRBAC(t *testing.T, o *objects, spec *corev1.PodSpec, podNS string, cfg *config.Config) {
	t.Helper()
	i := slices.IndexFunc(o.serviceAccounts, func(sa *corev1.ServiceAccount) bool {
		return sa.Name == spec.ServiceAccountName && nsOr(sa.Namespace) == podNS
	})
	if i < 0 {
		t.Fatalf("pods run as %s/%s, which is not among the ServiceAccounts", podNS, spec.ServiceAccountName)
	}
	isSA := func(subjects []rbacv1.Subject) bool {
		return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
			return s.Kind == "ServiceAccount" && s.Name == spec.ServiceAccountName && s.Namespace == podNS
		})
	}
	clusterRole := func(name string) *rbacv1.ClusterRole {
		for _, r := range o.clusterRoles {
			if r.Name == name {
				return r
			}
		}
		return nil
	}
	role := func(ns, name string) *rbacv1.Role {
		for _, r := range o.roles {
			if nsOr(r.Namespace) == ns && r.Name == name {
				return r
			}
		}
		return nil
	}
	// Rules granted cluster-wide, and per namespace.
	var cluster []rbacv1.PolicyRule
	namespaced := map[string][]rbacv1.PolicyRule{}
	for _, b := range o.clusterBindings {
		r := clusterRole(b.RoleRef.Name)
		if b.RoleRef.Kind != "ClusterRole" || r == nil {
			t.Errorf("ClusterRoleBinding %s refers to %+v, which does not exist", b.Name, b.RoleRef)
			continue
		}
		if !isSA(b.Subjects) {
			t.Errorf("ClusterRoleBinding %s: subjects %+v do not name ServiceAccount %s/%s", b.Name, b.Subjects, podNS, spec.ServiceAccountName)
			continue
		}
		cluster = append(cluster, r.Rules...)
	}
	for _, b := range o.roleBindings {
		ns := nsOr(b.Namespace)
		var rules []rbacv1.PolicyRule
		switch b.RoleRef.Kind {
		case "Role":
			if r := role(ns, b.RoleRef.Name); r != nil {
				rules = r.Rules
			}
		case "ClusterRole":
			if r := clusterRole(b.RoleRef.Name); r != nil {
				rules = r.Rules
			}
		}
		if rules == nil {
			t.Errorf("RoleBinding %s/%s refers to %+v, which does not exist in %s", ns, b.Name, b.RoleRef, ns)
			continue
		}
		if !isSA(b.Subjects) {
			t.Errorf("RoleBinding %s/%s: subjects %+v do not name ServiceAccount %s/%s", ns, b.Name, b.Subjects, podNS, spec.ServiceAccountName)
			continue
		}
		namespaced[ns] = append(namespaced[ns], rules...)
	}
	want := needs(t, cfg, podNS)
	if len(want) == 0 {
		t.Fatal("the config has no kubernetes_sd_configs")
	}
	clusterWide := false
	for _, a := range want {
		clusterWide = clusterWide || a.namespace == ""
		if allows(cluster, a.group, a.resource) || a.namespace != "" && allows(namespaced[a.namespace], a.group, a.resource) {
			continue
		}
		where := "in namespace " + a.namespace
		if a.namespace == "" {
			where = "cluster-wide"
		}
		t.Errorf("discovery reads %s %q %s, which no binding lets %s/%s list and watch", a.resource, a.group, where, podNS, spec.ServiceAccountName)
	}
	if !clusterWide && len(o.clusterBindings) > 0 {
		t.Errorf("discovery is confined to namespaces, yet %d ClusterRoleBinding(s) grant cluster-wide reads", len(o.clusterBindings))
	}
}
