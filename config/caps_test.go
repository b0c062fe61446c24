package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file over maxFileBytes is refused before YAML parses it: a mapping of
// 2,000,000 keys (17 MB) used to be parsed whole, 4–8 s, before the node
// budget refused it.
func TestConfigFileSizeCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("x: {")
	for i := range 2_000_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "k%d", i)
	}
	b.WriteString("}\n")
	path := filepath.Join(t.TempDir(), "keys.yml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadFile(path)
	want := path + ":1: the file is over the 8 MiB limit"
	if err == nil || err.Error() != want {
		t.Errorf("LoadFile = %v, want %q", err, want)
	}
	// Just at the cap, the size alone is no reason to refuse.
	at := "# " + strings.Repeat("x", maxFileBytes-3) + "\n"
	if _, err := Load([]byte(at), "at.yml"); err != nil && strings.Contains(err.Error(), "limit") {
		t.Errorf("a file of exactly %d bytes: %v", maxFileBytes, err)
	}
}

// Regexes are capped by source and by compiled program: a 1 MB
// output_regex cost 377 MiB, and 700 bytes of counted repeats compile to
// 100,000 instructions.
func TestRegexCaps(t *testing.T) {
	for _, c := range []struct{ name, re, want string }{
		{"long", strings.Repeat("x", maxRegexBytes+1), "regex of 16385 bytes is over the 16384-byte limit"},
		{"repeats", strings.Repeat("a{1000}", 100), "compiles to 100002 instructions, over the 50000 limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := NewRegexp(c.re); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("NewRegexp = %v, want %q", err, c.want)
			}
		})
	}
	if _, err := NewRegexp(strings.Repeat("x", maxRegexBytes)); err != nil {
		t.Errorf("a regex at the cap: %v", err)
	}
	// In a file, the budget refuses it before decoding compiles it;
	// relabel_configs' regex (compiled by Prometheus's decoder) too.
	cfg := "modules:\n  m:\n    output_regex: " + strings.Repeat("x", 20000) + "\n"
	_, err := Load([]byte(cfg), "re.yml")
	want := "re.yml:3: modules.m.output_regex: regex of 20000 bytes is over the 16384-byte limit"
	if err == nil || err.Error() != want {
		t.Errorf("Load = %v, want %q", err, want)
	}
}
