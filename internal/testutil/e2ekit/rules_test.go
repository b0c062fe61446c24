package e2ekit

import (
	"strings"
	"testing"
)

func TestParseRules(t *testing.T) {
	rules, err := ParseRules([]byte(`groups:
  - name: a
    rules:
      - record: r:x
        expr: sum(x)
        labels: {slo: ttft}
  - name: b
    rules:
      - alert: A
        expr: up == 0
        annotations: {summary: down}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].Record != "r:x" || rules[0].Labels["slo"] != "ttft" ||
		rules[1].Alert != "A" || rules[1].Expr != "up == 0" || rules[1].Annotations["summary"] != "down" {
		t.Errorf("rules %+v", rules)
	}
	if _, err := ParseRules([]byte("groups: [")); err == nil {
		t.Error("no error for broken YAML")
	}
}

func TestLoadBody(t *testing.T) {
	b := string(LoadBody(3, 7))
	for _, want := range []string{`"content":"load load load"`, `"max_tokens":7`, `"stream":true`, `"ignore_eos":true`} {
		if !strings.Contains(b, want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}
