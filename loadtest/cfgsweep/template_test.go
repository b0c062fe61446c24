package cfgsweep

import (
	"strings"
	"testing"
)

// A value is one argument whatever it holds: without a shell nothing in it
// is interpreted, and with one it is quoted.
func TestTemplateNoInjection(t *testing.T) {
	c := Configuration{Params: []Param{{"model", "a b; touch /tmp/pwned $(id) 'q'"}, {"seqs", "64"}}}
	tp, err := ParseTemplate("--server-cmd", `vllm serve {model} --max-num-seqs={seqs} --port {port} --chat-template '{"x": 1}'`, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Check([]Configuration{c}, true); err != nil {
		t.Fatal(err)
	}
	argv := tp.Argv(c, 8123)
	want := []string{"vllm", "serve", "a b; touch /tmp/pwned $(id) 'q'", "--max-num-seqs=64", "--port", "8123", "--chat-template", `{"x": 1}`}
	if strings.Join(argv, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("argv %q, want %q", argv, want)
	}
	sh, err := ParseTemplate("--server-cmd", "printf '%s\\n' {model} && echo {seqs}", true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := StartProcess(sh.Argv(c, 1))
	if err != nil {
		t.Fatal(err)
	}
	<-p.Exited()
	if got := p.Tail(); got != "a b; touch /tmp/pwned $(id) 'q'\n64" {
		t.Errorf("through sh -c: %q", got)
	}
	if d := Display(argv); d != `vllm serve 'a b; touch /tmp/pwned $(id) '\''q'\''' --max-num-seqs=64 --port 8123 --chat-template '{"x": 1}'` {
		t.Errorf("display: %s", d)
	}
}

// What only a shell does is refused without --server-shell, and a
// placeholder or parameter out of place is named before anything runs.
func TestTemplateChecks(t *testing.T) {
	for _, cmd := range []string{"a && b", "a | b", "a > f", "a $HOME", "a `id`", `a "$HOME"`, "a; b", "a (b)"} {
		if _, err := ParseTemplate("--server-cmd", cmd, false); err == nil || !strings.Contains(err.Error(), "needs a shell (add --server-shell") {
			t.Errorf("%q: %v", cmd, err)
		}
	}
	for _, cmd := range []string{"a 'b", `a "b`, `a \`, "  "} {
		if _, err := ParseTemplate("--server-cmd", cmd, false); err == nil {
			t.Errorf("%q: no error", cmd)
		}
	}
	tp, _ := ParseTemplate("--server-cmd", "serve --seqs {seqs} --len {max_len}", false)
	c := []Configuration{{Params: []Param{{"seqs", "1"}}}}
	if err := tp.Check(c, true); err == nil || !strings.Contains(err.Error(), "uses {max_len}, which configuration seqs=1 does not set") {
		t.Errorf("unknown placeholder: %v", err)
	}
	c[0].Params = append(c[0].Params, Param{"max_len", "1"}, Param{"unused", "2"})
	if err := tp.Check(c, true); err == nil || !strings.Contains(err.Error(), "parameter unused is not used in --server-cmd") {
		t.Errorf("unused parameter: %v", err)
	}
	ap, _ := ParseTemplate("--server-apply-cmd", "apply --port {port}", false)
	if err := ap.Check([]Configuration{{}}, false); err == nil || !strings.Contains(err.Error(), "{port}") {
		t.Errorf("{port} in an apply command: %v", err)
	}
}

// The log kept is bounded, whatever the server writes.
func TestRingTail(t *testing.T) {
	var r ring
	long := strings.Repeat("x", 5000)
	for i := range 2000 {
		r.Write([]byte(long + "\n"))
		if i%100 == 0 {
			r.Write([]byte("short line\n"))
		}
	}
	r.Write([]byte("last words\n"))
	tail := r.Tail()
	lines := strings.Split(tail, "\n")
	if len(r.buf) != logBytes || len(lines) > tailLines || lines[len(lines)-1] != "last words" || len(tail) > tailLines*(lineBytes+4) {
		t.Errorf("%d bytes kept, %d lines, last %q, tail %d bytes", len(r.buf), len(lines), lines[len(lines)-1], len(tail))
	}
	var small ring
	small.Write([]byte("boom\n"))
	if small.Tail() != "boom" {
		t.Errorf("short log: %q", small.Tail())
	}
}
