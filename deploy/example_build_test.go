package deploy

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

var update = flag.Bool("update", false, "rewrite "+exampleBuild)

// exampleBuild is what the example builds to. kustomize-v5.0.1/ builds
// the example with the kustomize of kubectl 1.27, the oldest
// docs/deployment.md names, and compares with this file: the two versions
// build the same.
const exampleBuild = "testdata/example-build.yaml"

func TestExampleBuild(t *testing.T) {
	rm, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), "kubernetes/example")
	if err != nil {
		t.Fatal(err)
	}
	got, err := rm.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rm.Resources()); n != 11 {
		t.Errorf("the example builds %d objects, want 11", n)
	}
	if *update {
		if err := os.WriteFile(exampleBuild, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(exampleBuild)
	if err != nil {
		t.Fatalf("%v (run `cd deploy && go test -run TestExampleBuild -update` to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the example's build differs from %s: if the change is meant, run `cd deploy && go test -run TestExampleBuild -update`", exampleBuild)
	}
}
