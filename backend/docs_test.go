package backend_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/backend"
)

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// listAfter returns the names listed after marker on the line that holds
// it, split at sep.
func listAfter(t *testing.T, doc, file, marker, sep string) []string {
	t.Helper()
	for _, line := range strings.Split(doc, "\n") {
		if _, rest, ok := strings.Cut(line, marker); ok {
			var names []string
			for _, n := range strings.Split(rest, sep) {
				names = append(names, strings.TrimSpace(n))
			}
			return names
		}
	}
	t.Fatalf("%s: no line with %q", file, marker)
	return nil
}

// Where the docs list the backends a target may name, they list exactly
// the registered ones, in Rank order.
func TestDocsListEveryBackend(t *testing.T) {
	ref, sm := readDoc(t, "../docs/configuration.md"), readDoc(t, "../docs/server-metrics.md")
	names := backend.Names()
	if got := listAfter(t, ref, "docs/configuration.md", "# auto (default) | ", "|"); !slices.Equal(got, names[1:]) {
		t.Errorf("docs/configuration.md's configuration reference lists backends %v, want %v", got, names[1:])
	}
	if got := listAfter(t, sm, "docs/server-metrics.md", "backend: auto            # or ", ","); !slices.Equal(got, names[1:]) {
		t.Errorf("docs/server-metrics.md's example lists backends %v, want %v", got, names[1:])
	}
	// The backend label's row names every detection prefix.
	row := listAfter(t, sm, "docs/server-metrics.md", "| backend | ", "\x00")[0]
	for _, b := range backend.All() {
		for _, p := range b.Prefixes {
			if !strings.Contains(row, "`"+p+"`") {
				t.Errorf("docs/server-metrics.md: the backend label's row does not name %s's prefix `%s`", b.Name, p)
			}
		}
	}
}

// The prompt sizing of docs/definitions.md names the backends that have a
// /tokenize by their config name, and no other.
func TestDocsTokenizeDialects(t *testing.T) {
	defs := readDoc(t, "../docs/definitions.md")
	start := strings.Index(defs, "- **exactly, before the first probe**")
	end := strings.Index(defs, "- **by calibration**")
	if start < 0 || end < start {
		t.Fatal("docs/definitions.md: the prompt sizing bullets are gone")
	}
	exact := defs[start:end]
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`(?:backend: )?([a-z]+)`").FindAllStringSubmatch(exact, -1) {
		named[m[1]] = true
	}
	for _, b := range backend.All() {
		if has := len(b.Tokenize) > 0; has != named[b.Name] {
			t.Errorf("docs/definitions.md's /tokenize bullet names %s: %v; its dialects: %v", b.Name, named[b.Name], b.Tokenize)
		}
	}
	if !named[backend.Auto] {
		t.Error("docs/definitions.md's /tokenize bullet does not say what auto does")
	}
}
