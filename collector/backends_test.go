package collector

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// Every backend of package backend is either mapped, with a recorded
// exposition in testdata that auto-detection recognises as it and that
// feeds its families, or explicitly unmapped (no rules: health and
// passthrough only, never detected).
func TestEveryBackendHasAFixture(t *testing.T) {
	detected := map[string][]string{} // backend → its golden fixtures
	fed := map[string]map[string]bool{}
	for _, c := range goldenCases {
		body, err := os.ReadFile(filepath.Join("testdata", c.fixture+".prom"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join("testdata", c.fixture+".golden")); err != nil {
			t.Errorf("%s: no golden output: %v", c.fixture, err)
		}
		fams, _, _, serr := parse(body)
		if serr != nil {
			t.Fatalf("%s: %v", c.fixture, serr.err)
		}
		names := make([]string, 0, len(fams))
		for n := range fams {
			names = append(names, n)
		}
		m := detectBackend(names)
		if m == nil || (!detects(string(c.backend)) && m.Backend != c.backend) {
			t.Errorf("%s: detected as %v, the case names %q", c.fixture, m, c.backend)
			continue
		}
		name := string(m.Backend)
		detected[name] = append(detected[name], c.fixture)
		samples, _ := normalize(m, fams, "configured")
		if fed[name] == nil {
			fed[name] = map[string]bool{}
		}
		for _, s := range samples {
			fed[name][s.fam.name] = true
		}
	}
	for _, b := range backend.All() {
		m := registry[config.Backend(b.Name)]
		if len(b.Rules) == 0 {
			if m != nil || len(detected[b.Name]) > 0 {
				t.Errorf("%s has no rules, yet a mapping (%v) or fixtures detected as it (%v)", b.Name, m != nil, detected[b.Name])
			}
			continue
		}
		if m == nil || len(m.Rules) != len(b.Rules) {
			t.Errorf("%s: its rules are not all in collector's registry", b.Name)
			continue
		}
		if len(detected[b.Name]) == 0 {
			t.Errorf("%s: no golden case whose exposition is detected as it; add testdata/%s.prom and a goldenCases entry", b.Name, b.Name)
			continue
		}
		if len(fed[b.Name]) == 0 {
			t.Errorf("%s: its fixtures %v feed no family", b.Name, detected[b.Name])
		}
		var unfed []string
		for _, r := range m.Rules {
			if !fed[b.Name][r.Family.name] && !slices.Contains(unfed, r.Family.name) {
				unfed = append(unfed, r.Family.name)
			}
		}
		t.Logf("%s: fixtures %v feed %d families; none feeds %v", b.Name, detected[b.Name], len(fed[b.Name]), unfed)
	}
}
