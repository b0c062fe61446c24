package deploy

import (
	"fmt"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// objects is one kustomization's output, each manifest decoded strictly
// (an unknown or misspelt field fails) into its upstream Go type.
type objects struct {
	statefulSet     *appsv1.StatefulSet
	services        []*corev1.Service
	configMaps      []*corev1.ConfigMap
	secrets         []*corev1.Secret
	serviceAccounts []*corev1.ServiceAccount
	namespaces      []*corev1.Namespace
	clusterRoles    []*rbacv1.ClusterRole
	clusterBindings []*rbacv1.ClusterRoleBinding
	roles           []*rbacv1.Role
	roleBindings    []*rbacv1.RoleBinding
	netpols         []*networkingv1.NetworkPolicy
	pdbs            []*policyv1.PodDisruptionBudget
	serviceMonitors []*monitoringv1.ServiceMonitor
	rules           []*monitoringv1.PrometheusRule
	jobs            []*batchv1.Job
	pvcs            []*corev1.PersistentVolumeClaim
}

// build runs kustomize (its Go API, as kubectl -k does) on dir.
func build(t *testing.T, dir string) *objects {
	t.Helper()
	rm, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	o := &objects{}
	for _, r := range rm.Resources() {
		b, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		gvk := r.GetApiVersion() + " " + r.GetKind()
		if err := o.add(gvk, b); err != nil {
			t.Errorf("%s: %s %s: %v", dir, gvk, r.GetName(), err)
		}
	}
	return o
}

func strict[T any](b []byte) (*T, error) {
	v := new(T)
	return v, yaml.UnmarshalStrict(b, v)
}

func (o *objects) add(gvk string, b []byte) error {
	var err error
	switch gvk {
	case "apps/v1 StatefulSet":
		if o.statefulSet != nil {
			return fmt.Errorf("a second StatefulSet")
		}
		o.statefulSet, err = strict[appsv1.StatefulSet](b)
	case "v1 Service":
		err = appendStrict(&o.services, b)
	case "v1 ConfigMap":
		err = appendStrict(&o.configMaps, b)
	case "v1 Secret":
		err = appendStrict(&o.secrets, b)
	case "v1 ServiceAccount":
		err = appendStrict(&o.serviceAccounts, b)
	case "v1 Namespace":
		err = appendStrict(&o.namespaces, b)
	case "rbac.authorization.k8s.io/v1 ClusterRole":
		err = appendStrict(&o.clusterRoles, b)
	case "rbac.authorization.k8s.io/v1 ClusterRoleBinding":
		err = appendStrict(&o.clusterBindings, b)
	case "rbac.authorization.k8s.io/v1 Role":
		err = appendStrict(&o.roles, b)
	case "rbac.authorization.k8s.io/v1 RoleBinding":
		err = appendStrict(&o.roleBindings, b)
	case "networking.k8s.io/v1 NetworkPolicy":
		err = appendStrict(&o.netpols, b)
	case "policy/v1 PodDisruptionBudget":
		err = appendStrict(&o.pdbs, b)
	case "monitoring.coreos.com/v1 ServiceMonitor":
		err = appendStrict(&o.serviceMonitors, b)
	case "monitoring.coreos.com/v1 PrometheusRule":
		err = appendStrict(&o.rules, b)
	case "batch/v1 Job":
		err = appendStrict(&o.jobs, b)
	case "v1 PersistentVolumeClaim":
		err = appendStrict(&o.pvcs, b)
	default:
		err = fmt.Errorf("no test decodes this kind")
	}
	return err
}

func appendStrict[T any](list *[]*T, b []byte) error {
	v, err := strict[T](b)
	*list = append(*list, v)
	return err
}
