package config

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

// below are config's own sub-packages: config imports them, they
// import none of config's packages (nor each other), so imports point
// one way. The package docs say the same in words.
var below = []string{"config/otlpcfg", "config/yamlbudget"}

const module = "github.com/llm-prober/llm-prober/"

// TestImportsPointDown fails when a sub-package imports config or
// another of its sub-packages (tests included: a test that reaches up
// hides a cycle), or when a sub-package is missing from below.
func TestImportsPointDown(t *testing.T) {
	for _, pkg := range below {
		files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
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
				if dep, ok := strings.CutPrefix(path, module); ok && (dep == "config" || strings.HasPrefix(dep, "config/")) {
					t.Errorf("%s imports %s: config's sub-packages import none of its packages", f, dep)
				}
			}
		}
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		if !slices.Contains(below, "config/"+e.Name()) {
			t.Errorf("config/%s is not listed in below", e.Name())
		}
	}
}
