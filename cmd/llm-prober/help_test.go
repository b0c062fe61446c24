package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// --help without a command shows the daemon's flags, on stdout, exit 0;
// a named command keeps its own help.
func TestHelpShowsProbeFlags(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"--help"}, "--config.file", ""},
		{[]string{"-h"}, "--web.listen-address", ""},
		{[]string{"mock-vllm", "--help"}, "mock-vllm", "--config.file"},
	} {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(binary, c.args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%v: %v", c.args, err)
		}
		if !strings.Contains(stdout.String(), c.want) {
			t.Errorf("%v: stdout lacks %q:\n%s\nstderr:\n%s", c.args, c.want, stdout.String(), stderr.String())
		}
		if c.not != "" && strings.Contains(stdout.String(), c.not) {
			t.Errorf("%v: shows %q", c.args, c.not)
		}
	}
}
