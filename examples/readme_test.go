package examples

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/config"
)

// The README's package map maps the repository: every top-level directory
// and every directory of Go code (in any of the modules) is on a line of
// its own or under one.
func TestREADMEMapsEveryPackage(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, dev, ok := strings.Cut(string(b), "\n## Package map\n\n```\n")
	if !ok {
		t.Fatal("README has no package map")
	}
	dev, _, _ = strings.Cut(dev, "```")
	var mapped []string
	for _, l := range strings.Split(strings.TrimSpace(dev), "\n") {
		dir, _, _ := strings.Cut(l, " ")
		if !strings.HasSuffix(dir, "/") {
			t.Errorf("not one line per directory: %q", l)
			continue
		}
		mapped = append(mapped, dir)
	}
	// covered: dir or a parent is mapped, or (a top-level directory of
	// commands, say) some of its children are.
	covered := func(dir string) bool {
		for _, m := range mapped {
			if strings.HasPrefix(dir+"/", m) || strings.HasPrefix(m, dir+"/") && !strings.Contains(dir, "/") {
				return true
			}
		}
		return false
	}
	// Build outputs (dist/) are not the repository's.
	ignore, err := os.ReadFile("../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	ignored := func(rel string) bool {
		return strings.Contains("\n"+string(ignore)+"\n", "\n/"+rel+"/\n")
	}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || path == ".." {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, "../"))
		base := d.Name()
		if strings.HasPrefix(base, ".") || base == "testdata" || base == "node_modules" || ignored(rel) {
			return filepath.SkipDir
		}
		goCode, _ := filepath.Glob(filepath.Join(path, "*.go"))
		if (len(goCode) > 0 || !strings.Contains(rel, "/")) && !covered(rel) {
			t.Errorf("README's package map does not map %s/", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The README's example of the probe job is a configuration that loads.
func TestREADMEProbeExampleLoads(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, probe, ok := strings.Cut(string(b), "\n### probe: ")
	if !ok {
		t.Fatal("README has no probe job")
	}
	_, yml, ok := strings.Cut(probe, "\n```yaml\n")
	if !ok {
		t.Fatal("README's probe job has no YAML example")
	}
	yml, _, _ = strings.Cut(yml, "```")
	cfg, err := config.Load([]byte(yml), "README.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Targets) != 1 || len(cfg.Modules) != 1 {
		t.Errorf("%d targets, %d modules", len(cfg.Targets), len(cfg.Modules))
	}
}
