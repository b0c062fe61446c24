package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// The configuration reference (docs/configuration.md) counts the bad
// configs the tests hold.
func TestDocsBadConfigCount(t *testing.T) {
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`config/testdata/bad/` holds (\\d+) bad configs").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/configuration.md does not count config/testdata/bad/")
	}
	files, err := filepath.Glob("testdata/bad/*.yml")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(string(m[1])); n != len(files) {
		t.Errorf("docs/configuration.md says %d bad configs, testdata/bad holds %d", n, len(files))
	}
}
