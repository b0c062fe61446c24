package loadtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// layers is the one-way import order of bench's packages, lowest first:
// a package may import only packages of a lower layer (paths relative to
// the module). The package docs say the same in words.
var layers = [][]string{
	{"internal/textfmt", "loadtest/stats", "loadtest/shard", "cmd/llm-prober/bench/exitcode"},
	{"capacity", "loadtest/workload", "loadtest/serverwatch"},
	{"loadtest"},
	{"loadtest/summary"},
	{"loadtest/sweep", "loadtest/resultfile"},
	{"loadtest/compare", "loadtest/merge", "loadtest/cfgsweep"},
	{"loadtest/report"},
	{"cmd/llm-prober/bench/mergecmd"},
	{"cmd/llm-prober/bench"},
}

// TestImportsPointDown fails when a bench package imports one of its own
// layer or above (tests included: a test that reaches up hides a cycle).
func TestImportsPointDown(t *testing.T) {
	level := map[string]int{}
	for i, ps := range layers {
		for _, p := range ps {
			level[p] = i
		}
	}
	root := ".."
	for pkg, lv := range level {
		testutil.ModuleImports(t, root, pkg, func(file, dep string) {
			t.Helper()
			if dl, ok := level[dep]; ok && dl >= lv && dep != pkg {
				t.Errorf("%s imports %s: %s is in layer %d, %s in %d", file, dep, dep, dl, pkg, lv)
			}
		})
	}
	// Every package under loadtest/ has a layer (or is internal test help).
	err := filepath.WalkDir(root+"/loadtest", func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || strings.Contains(p, "internal") || strings.Contains(p, "testdata") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if _, ok := level[filepath.ToSlash(rel)]; !ok {
			t.Errorf("%s has no layer in layers", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
