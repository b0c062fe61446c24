package cfgsweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The grid is every combination, the first flag varying slowest, and a
// file's configurations are crossed with it.
func TestGridAndFile(t *testing.T) {
	g, err := ParseGrid([]string{"max_num_seqs=64,128", "gpu_memory_utilization=0.85,0.9,0.95"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range g {
		keys = append(keys, c.Key())
	}
	want := "max_num_seqs=64 gpu_memory_utilization=0.85|max_num_seqs=64 gpu_memory_utilization=0.9|max_num_seqs=64 gpu_memory_utilization=0.95|" +
		"max_num_seqs=128 gpu_memory_utilization=0.85|max_num_seqs=128 gpu_memory_utilization=0.9|max_num_seqs=128 gpu_memory_utilization=0.95"
	if strings.Join(keys, "|") != want {
		t.Errorf("grid:\n%s\nwant\n%s", strings.Join(keys, "|"), want)
	}
	list, err := parseFile("f", "# comment\n\nsmall: max_model_len=2048\n  large:  max_model_len=32768 extra='a b'\nmax_model_len=8192\n")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Cross(list, []Configuration{{Params: []Param{{"seqs", "1"}}}, {Params: []Param{{"seqs", "2"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 6 || cs[2].Key() != "large: max_model_len=32768 extra=a b seqs=1" || cs[2].Label() != "large" || cs[5].Label() != "max_model_len=8192 seqs=2" {
		t.Errorf("crossed: %+v", cs)
	}
	if _, err := Cross(list, []Configuration{{Params: []Param{{"max_model_len", "1"}}}}); err == nil || !strings.Contains(err.Error(), "sets max_model_len twice") {
		t.Errorf("a parameter in both: %v", err)
	}
}

// Bad input gets one line naming the flag, or the file and line.
func TestBadConfigurations(t *testing.T) {
	for _, c := range []struct{ flags []string }{
		{[]string{"novalue"}}, {[]string{"1abc=1"}}, {[]string{"port=1"}}, {[]string{"a=1", "a=2"}}, {[]string{"a=1,,2"}},
		{[]string{"a=x\x1b[2J"}}, {[]string{"a=" + strings.Repeat("x", 300)}}, {[]string{"a=\xff"}},
	} {
		if _, err := ParseGrid(c.flags); err == nil || !strings.HasPrefix(err.Error(), "--server-param") {
			t.Errorf("%q: %v", c.flags, err)
		}
	}
	// 11 × 10 × 10 > MaxConfigurations.
	v := strings.TrimSuffix(strings.Repeat("1,", 10), ",")
	if _, err := ParseGrid([]string{"a=" + v + ",2", "b=" + v, "c=" + v}); err == nil || !strings.Contains(err.Error(), "more than 1000") {
		t.Errorf("a huge grid: %v", err)
	}
	for text, want := range map[string]string{
		"a=1\nb\n":           "f:2: \"b\" is not PARAM=VALUE",
		"x: a=1\nx: a=2\n":   "f:2: configuration name \"x\" used twice",
		"a=1 a=2":            "f:1: a set twice",
		"a='1":               "f:1: unterminated '",
		"# only a comment\n": "f: no configuration",
		"bad/name: a=1":      "f:1: configuration name",
		"a=\"x\x07\"":        "f:1: a: value has a control character",
		"{port}=1":           "f:1: parameter name",
		strings.Repeat("a=1\n", MaxConfigurations+1): "f:1001: more than 1000 configurations",
	} {
		if _, err := parseFile("f", text); err == nil || !strings.Contains(err.Error(), "--server-config "+want) {
			t.Errorf("%.40q: %v, want %q", text, err, want)
		}
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, maxFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), "over the size cap") {
		t.Errorf("a file over the cap: %v", err)
	}
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}
