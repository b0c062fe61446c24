package main

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
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

// --config.check fails on a file the config names but that cannot be read,
// naming file, line and field; the same config loads in a running prober.
func TestConfigCheckReportsMissingFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "llm-prober.yml")
	testutil.WriteFile(t, file, fmt.Sprintf(configTemplate,
		"  - {name: a, url: \"https://127.0.0.1:1\", model: m, modules: [chat], http_client_config: {tls_config: {ca_file: missing-ca.pem}}}\n"))
	out, err := exec.Command(binary, "--config.check", "--config.file="+file).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("want exit 1, got %v: %s", err, out)
	}
	if want := regexp.MustCompile(`llm-prober\.yml:\d+: targets\[0\]\.http_client_config\.tls_config\.ca_file: .*missing-ca\.pem`); !want.Match(out) {
		t.Errorf("message %q lacks file, line, field and path", out)
	}
}
