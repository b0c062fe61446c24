package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// withBenchShards copies deploy/kubernetes and adds a kustomization that
// uses the bench-shards component, as docs/bench-sharding.md shows.
func withBenchShards(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kubernetes")
	if err := os.CopyFS(dir, os.DirFS("kubernetes")); err != nil {
		t.Fatal(err)
	}
	k := filepath.Join(dir, "bench")
	if err := os.Mkdir(k, 0o755); err != nil {
		t.Fatal(err)
	}
	kz := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: llm-prober\ncomponents:\n  - ../components/bench-shards\n"
	if err := os.WriteFile(filepath.Join(k, "kustomization.yaml"), []byte(kz), 0o644); err != nil {
		t.Fatal(err)
	}
	return k
}

// argLines is a kingpin @file's arguments: its lines less comments.
func argLines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// The component's shards are an Indexed Job that never retries an index
// (a restarted shard would re-send its part), as many pods as
// --shard-count, each writing its own file to the shared volume that
// the (suspended) merge Job reads every shard's file from.
func TestBenchShardsComponent(t *testing.T) {
	checkBenchShards(t, build(t, withBenchShards(t)), 4)
}

// The Helm chart's equivalent (bench.enabled), rendered with Helm's
// engine and linted: the same checks, its own shard count.
func TestHelmBenchShards(t *testing.T) {
	const file = "testdata/helm/bench.yaml"
	o := render(t, file)
	o.configMaps = slices.DeleteFunc(o.configMaps, func(cm *corev1.ConfigMap) bool { return !strings.HasSuffix(cm.Name, "-bench") })
	checkBenchShards(t, o, 3)
	if len(render(t, "").jobs) != 0 {
		t.Error("bench.enabled is false by default, yet the chart renders Jobs")
	}
	l := lint.All(chartDir, helmValues(t, file), "llm-prober", false)
	for _, m := range l.Messages {
		if m.Severity >= support.WarningSev {
			t.Errorf("helm lint (values %q): %s", file, m)
		}
	}
}

func checkBenchShards(t *testing.T, o *objects, want int) {
	t.Helper()
	if len(o.jobs) != 2 || len(o.pvcs) != 1 || len(o.configMaps) != 1 {
		t.Fatalf("%d Jobs, %d PVCs, %d ConfigMaps; want 2, 1, 1", len(o.jobs), len(o.pvcs), len(o.configMaps))
	}
	cm := o.configMaps[0]
	args, mergeArgs := argLines(cm.Data["args"]), argLines(cm.Data["merge-args"])
	flag := func(name string) string {
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
				return v
			}
		}
		return ""
	}
	count, err := strconv.Atoi(flag("shard-count"))
	if err != nil || count != want || flag("seed") == "" || flag("start-at") == "" || flag("url") == "" {
		t.Fatalf("args lack --shard-count %d, --seed, --start-at or --url: %q", want, args)
	}
	var shards, merge *batchv1.Job
	for _, j := range o.jobs {
		if j.Namespace != "llm-prober" {
			t.Errorf("Job %s in namespace %q", j.Name, j.Namespace)
		}
		if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion {
			shards = j
		} else {
			merge = j
		}
	}
	if shards == nil || merge == nil {
		t.Fatal("want one Indexed Job (the shards) and one merge Job")
	}
	s := shards.Spec
	switch {
	case s.Completions == nil || int(*s.Completions) != count || s.Parallelism == nil || int(*s.Parallelism) != count:
		t.Errorf("completions %v, parallelism %v: want both --shard-count %d", s.Completions, s.Parallelism, count)
	case s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 0:
		t.Errorf("backoffLimitPerIndex %v: want 0, a shard is never re-run", s.BackoffLimitPerIndex)
	case s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever:
		t.Errorf("restartPolicy %q: a restarted container re-sends its part", s.Template.Spec.RestartPolicy)
	}
	c := s.Template.Spec.Containers[0]
	if !slices.Contains(c.Args, "@/etc/llm-prober-bench/args") || !slices.Contains(c.Args, "--output-json=/results/shard-$(JOB_COMPLETION_INDEX).json") {
		t.Errorf("shard args %q", c.Args)
	}
	if len(c.Env) != 1 || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("env %+v: args name $(JOB_COMPLETION_INDEX), so it must be declared", c.Env)
	}
	if merge.Spec.Suspend == nil || !*merge.Spec.Suspend {
		t.Error("the merge Job must start suspended: it runs once the shards have finished")
	}
	for i := range count {
		if !slices.Contains(mergeArgs, fmt.Sprintf("/results/shard-%d.json", i)) {
			t.Errorf("merge-args lacks shard %d's file: %q", i, mergeArgs)
		}
	}
	pvc := o.pvcs[0]
	for _, j := range o.jobs {
		vols := map[string]corev1.Volume{}
		for _, v := range j.Spec.Template.Spec.Volumes {
			vols[v.Name] = v
		}
		if v := vols["results"]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != pvc.Name {
			t.Errorf("%s: results volume %+v, want the claim %s", j.Name, v, pvc.Name)
		}
		if v := vols["args"]; v.ConfigMap == nil || v.ConfigMap.Name != cm.Name {
			t.Errorf("%s: args volume %+v, want the ConfigMap %s (its generated name)", j.Name, v, cm.Name)
		}
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("the results claim's access modes %v: pods on several nodes write it", pvc.Spec.AccessModes)
	}
}
