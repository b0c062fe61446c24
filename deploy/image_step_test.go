package deploy

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kustomize/v5/commands"
)

// docImageStep returns docs/deployment.md's image step: the words of its
// `kustomize edit set image` line, run in deploy/kubernetes/example.
func docImageStep(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	var step []string
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "kustomize edit set image ") {
			if step != nil {
				t.Fatalf("docs/deployment.md has two image steps")
			}
			step = strings.Fields(line)
		}
	}
	if step == nil {
		t.Fatal("docs/deployment.md has no `kustomize edit set image` line")
	}
	return step
}

// TestDocImageStep applies the documented image step, with kustomize's
// own edit command, to a copy of the example and checks that the built
// StatefulSet runs the new image (issue 33: the base renamed the image,
// so `set image llm-prober=...` matched nothing and every pod pulled an
// unpublished image). The example's own comment gives the same command.
func TestDocImageStep(t *testing.T) {
	step := docImageStep(t)
	example, err := os.ReadFile("kubernetes/example/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(example), strings.Join(step, " ")) {
		t.Errorf("kubernetes/example/kustomization.yaml does not give docs/deployment.md's image step %q", strings.Join(step, " "))
	}
	eq := strings.LastIndex(step[len(step)-1], "=")
	want := step[len(step)-1][eq+1:]

	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "kubernetes"), os.DirFS("kubernetes")); err != nil {
		t.Fatal(err)
	}
	before := container(t, build(t, filepath.Join(dir, "kubernetes/example")).statefulSet).Image
	if before == want {
		t.Fatalf("the example already runs %s", want)
	}
	t.Chdir(filepath.Join(dir, "kubernetes/example"))
	cmd := commands.NewDefaultCommand()
	cmd.SetArgs(step[1:])
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(step, " "), err, out.String())
	}
	if got := container(t, build(t, ".").statefulSet).Image; got != want {
		t.Errorf("after %q the StatefulSet runs %s, want %s", strings.Join(step, " "), got, want)
	}
}
