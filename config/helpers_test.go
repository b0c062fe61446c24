package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHelpers(t *testing.T) {
	c := loadGood(t)
	if got := c.LabelKeys(); !slices.Equal(got, []string{"gpu", "team"}) {
		t.Errorf("LabelKeys %v", got)
	}
	if c.TargetByName("nope") != nil {
		t.Error("TargetByName found a missing target")
	}
	if v := c.TargetByName("vllm-llama-8b"); v == nil || !slices.Equal(v.Modules, []string{"chat", "long_decode"}) {
		t.Errorf("TargetByName: %+v", v)
	}
	tg := &Target{URL: "https://u:p@host:8000/base?key=sk-1#frag"}
	if got := tg.RedactedURL(); got != "https://host:8000/base" {
		t.Errorf("RedactedURL %q", got)
	}
}

func TestEqual(t *testing.T) {
	a, b := loadGood(t), loadGood(t)
	for i := range a.Targets {
		if !a.Targets[i].Equal(b.Targets[i]) {
			t.Errorf("%s: identical loads differ", a.Targets[i].Name)
		}
	}
	// prometheus/common caches a proxy func on first use; it is not config.
	_ = a.Targets[0].HTTPClientConfig.Proxy()
	if !a.Targets[0].Equal(b.Targets[0]) {
		t.Error("Proxy() changed equality")
	}

	// Lines move when unrelated text is added; that is no change.
	c := mustLoad(t, "# comment\n"+minimal)
	d := mustLoad(t, minimal)
	if !c.Targets[0].Equal(d.Targets[0]) || !c.Modules["m"].Equal(d.Modules["m"]) {
		t.Error("a moved target is not equal")
	}

	e := mustLoad(t, strings.Replace(minimal, "content: hi", "content: ho", 1))
	if !e.Targets[0].Equal(d.Targets[0]) {
		t.Error("a module change must not show in the target's equality")
	}
	if e.Modules["m"].Equal(d.Modules["m"]) {
		t.Error("changed module is equal")
	}
	t.Setenv("LLM_PROBER_TEST_TOKEN", "other-token")
	f := mustLoadFile(t, "testdata/good.yml")
	if f.Targets[0].Equal(b.Targets[0]) {
		t.Error("a changed env secret is not a change")
	}
	if (*Target)(nil).Equal(nil) != true || b.Targets[0].Equal(nil) {
		t.Error("nil handling")
	}
}

func mustLoadFile(t *testing.T, path string) *Config {
	t.Helper()
	c, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// forEachTestdata runs fn as a subtest for every dir/*.yml, named after the
// file and given want[name]; a file without an entry, or an entry without
// a file, fails the test.
func forEachTestdata(t *testing.T, dir string, want map[string]string, fn func(t *testing.T, file, want string)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Errorf("%d files in %s, %d expected outcomes", len(files), dir, len(want))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yml")
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("%s has no expected outcome", f)
			}
			fn(t, f, w)
		})
	}
}
