package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// The README counts the bad configs the tests hold.
func TestREADMEBadConfigCount(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`config/testdata/bad/` holds (\\d+) bad configs").FindSubmatch(b)
	if m == nil {
		t.Fatal("README does not count config/testdata/bad/")
	}
	files, err := filepath.Glob("testdata/bad/*.yml")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(string(m[1])); n != len(files) {
		t.Errorf("README says %d bad configs, testdata/bad holds %d", n, len(files))
	}
}
