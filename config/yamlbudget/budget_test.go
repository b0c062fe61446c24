package yamlbudget

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func parse(t *testing.T, doc string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

// A nest of aliases that stands for billions of nodes is refused at the
// line and field of the alias that crosses the limit; a document within
// the limits passes. (config's hostile tests go through config.Load.)
func TestCheck(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	e := Check(parse(t, b.String()), 100)
	if e == nil || !strings.Contains(e.Msg, "YAML nodes once aliases") || !strings.HasPrefix(e.Path, "a") || e.Line < 6 {
		t.Fatalf("alias bomb: %+v", e)
	}
	if e := Check(parse(t, "targets:\n  - url: http://x\n    regex: '"+strings.Repeat("a", 101)+"'\n"), 100); e == nil ||
		e.Line != 3 || e.Path != "targets[0].regex" || e.Msg != "regex of 101 bytes is over the 100-byte limit" {
		t.Fatalf("long regex: %+v", e)
	}
	if e := Check(parse(t, "a: &x {b: 1}\nc: *x\nd: {<<: *x}\n"), 100); e != nil {
		t.Fatalf("plain aliases refused: %v", e)
	}
}
