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
// counts them it gives their number.
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
	if !slices.Equal(documented, code) {
		t.Errorf("README's failure reasons %v, the code's (in order) %v", documented, code)
	}
	counts := regexp.MustCompile(`(\d+) failure reasons`).FindAllStringSubmatch(readme, -1)
	if len(counts) == 0 {
		t.Error("README does not count the failure reasons")
	}
	for _, m := range counts {
		if n, _ := strconv.Atoi(m[1]); n != len(Reasons) {
			t.Errorf("README says %s failure reasons, there are %d", m[1], len(Reasons))
		}
	}
}
