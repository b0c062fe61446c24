package prober

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The failure-reason table (docs/definitions.md) lists exactly Reasons;
// docs/metrics.md counts them, the SLOs and the validators (the label
// values per target and module), and wherever the README or a page of
// docs/ counts them, it gives their number.
func TestDocsFailureReasons(t *testing.T) {
	b, err := os.ReadFile("../docs/definitions.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Failure reasons\n")
	if !ok {
		t.Fatal("docs/definitions.md has no Failure reasons section")
	}
	section, _, _ = strings.Cut(section, "\n#")
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\|").FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	var code []string
	for _, r := range Reasons {
		code = append(code, string(r))
	}
	slices.Sort(documented)
	slices.Sort(code)
	if !slices.Equal(documented, code) {
		t.Errorf("docs/definitions.md's failure reasons %v, the code's %v", documented, code)
	}
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"../README.md"}, pages...)
	for what, n := range map[string]int{"failure reasons": len(Reasons), "SLOs": len(SLONames), "validators": len(Validators)} {
		counted := false
		for _, page := range pages {
			doc, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			counts := regexp.MustCompile(`(\d+) `+what).FindAllStringSubmatch(string(doc), -1)
			counted = counted || len(counts) > 0 && page == "../docs/metrics.md"
			for _, m := range counts {
				if got, _ := strconv.Atoi(m[1]); got != n {
					t.Errorf("%s says %s %s, there are %d", strings.TrimPrefix(page, "../"), m[1], what, n)
				}
			}
		}
		if !counted {
			t.Errorf("docs/metrics.md does not count the %s", what)
		}
	}
}
