package testutil

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/llm-prober/llm-prober/"

// CheckSubpackages fails when a sub-package of parent (the test's own
// directory, a path from the module root) imports a package of this
// module it is not allowed (tests included: a test that reaches up hides
// a cycle), or when a sub-package is missing from allowed, which maps
// each one ("parent/sub") to the module packages it may import.
func CheckSubpackages(t *testing.T, parent string, allowed map[string][]string) {
	t.Helper()
	root := strings.Repeat("../", strings.Count(parent, "/")+1)
	for pkg, may := range allowed {
		ModuleImports(t, root, pkg, func(file, dep string) {
			t.Helper()
			if !slices.Contains(may, dep) {
				t.Errorf("%s imports %s: %s may import only %v of this module", file, dep, pkg, may)
			}
		})
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := allowed[parent+"/"+e.Name()]; e.IsDir() && e.Name() != "testdata" && !ok {
			t.Errorf("%s/%s is not listed among the sub-packages", parent, e.Name())
		}
	}
}

// ModuleImports calls visit with each import of a package of this module
// (dep, a path from the module root) by a Go file of pkg (a path from the
// module root, which is root from the test's directory), tests included.
func ModuleImports(t *testing.T, root, pkg string, visit func(file, dep string)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no Go files (%v)", pkg, err)
	}
	for _, f := range files {
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range ast.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(path, module); ok {
				visit(f, dep)
			}
		}
	}
}
