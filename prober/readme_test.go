package prober

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The README's failure-reason table lists exactly Reasons, and where it
// counts them, the SLOs or the validators it gives their number.
func TestREADMEFailureReasons(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	_, section, ok := strings.Cut(readme, "\n### Failure reasons\n")
	if !ok {
		t.Fatal("README has no Failure reasons section")
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
		t.Errorf("README's failure reasons %v, the code's %v", documented, code)
	}
	for what, n := range map[string]int{"failure reasons": len(Reasons), "SLOs": len(SLONames), "validators": len(Validators)} {
		counts := regexp.MustCompile(`(\d+) `+what).FindAllStringSubmatch(readme, -1)
		if len(counts) == 0 {
			t.Errorf("README does not count the %s", what)
		}
		for _, m := range counts {
			if got, _ := strconv.Atoi(m[1]); got != n {
				t.Errorf("README says %s %s, there are %d", m[1], what, n)
			}
		}
	}
}
