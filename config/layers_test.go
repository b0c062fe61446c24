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

// below are config's own sub-packages, each with the packages of this
// module it may import: none of config's packages, so that imports point
// one way (config imports them). The package docs say the same in words.
var below = map[string][]string{
	"config/otlpcfg":    nil,
	"config/regex":      nil,
	"config/yamlbudget": nil,
}

const module = "github.com/llm-prober/llm-prober/"

// TestImportsPointDown fails when a sub-package imports a package of this
// module it is not allowed (tests included: a test that reaches up hides a
// cycle), or when a sub-package is missing from below.
func TestImportsPointDown(t *testing.T) {
	for pkg, allowed := range below {
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
				if dep, ok := strings.CutPrefix(path, module); ok && !slices.Contains(allowed, dep) {
					t.Errorf("%s imports %s: %s may import only %v of this module", f, dep, pkg, allowed)
				}
			}
		}
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := below["config/"+e.Name()]; e.IsDir() && e.Name() != "testdata" && !ok {
			t.Errorf("config/%s is not listed in below", e.Name())
		}
	}
}
