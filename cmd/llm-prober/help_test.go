package main

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/cmd/llm-prober/bench"
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

// helpFlag is a row of a help's flag table ("  -h, --[no-]help",
// "      --url=URL"); wrapped descriptions are indented further.
var helpFlag = regexp.MustCompile(`^(?:  -\w, |      )--(?:\[no-\])?([\w.-]+)`)

// helpFlags are the flags a help lists under Flags:, in order.
func helpFlags(help string) []string {
	_, table, ok := strings.Cut(help, "\nFlags:\n")
	if !ok {
		return nil
	}
	table, _, _ = strings.Cut(table, "\n\n")
	var names []string
	for _, line := range strings.Split(table, "\n") {
		if m := helpFlag.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

// shownFlags are the flags of c that a help shows (not the hidden ones).
func shownFlags(c *kingpin.CmdClause) []string {
	var names []string
	for _, f := range c.Model().Flags {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	return names
}

// Every command's help lists the global flags and its own, each once and
// no others (issue 30): bench compare none of bench's run flags; bench,
// whose run is its default subcommand, the run's, as before.
func TestHelpShowsOwnFlags(t *testing.T) {
	app := kingpin.New("llm-prober", "")
	bench.NewCommand(app)
	runCmd := app.GetCommand("bench").GetCommand("run")
	p := newPlanCmd(app)
	mock := app.Command("mock-vllm", mockHelp)
	new(mockFlags).register(mock)
	global := []string{"help", "version"}
	run := append(slices.Clone(global), shownFlags(runCmd)...)
	for _, c := range []struct {
		args      []string
		want      []string // nil: only has and not are checked
		has, not  []string
		usageLine string
	}{
		{[]string{"bench", "--help"}, run,
			[]string{"url", "request-rate", "num-prompts", "output-json", "sweep", "prometheus.url", "workload-from-prometheus", "turns", "web.listen-address"},
			[]string{"max-regression", "alpha", "force", "rate-interval", "config.check", "log.level"},
			"usage: llm-prober bench [<flags>] <command> [<args> ...]"},
		{[]string{"help", "bench"}, run, nil, nil, "usage: llm-prober bench [<flags>] <command> [<args> ...]"},
		{[]string{"bench", "run", "--help"}, run, nil, nil, "usage: llm-prober bench run [<flags>]"},
		{[]string{"bench", "compare", "--help"}, append(slices.Clone(global), "max-regression", "alpha", "force", "output-json", "report"),
			nil, []string{"url", "request-rate", "num-prompts", "prometheus.url", "web.listen-address"},
			"usage: llm-prober bench compare [<flags>] <base> <new>"},
		{[]string{"plan", "--help"}, append(slices.Clone(global), shownFlags(p.cmd)...),
			[]string{"prometheus.url", "rate-interval", "knee-file", "output-json"}, []string{"url", "request-rate", "max-regression"},
			"usage: llm-prober plan [<flags>]"},
		{[]string{"mock-vllm", "--help"}, append(slices.Clone(global), shownFlags(mock)...),
			[]string{"listen-address", "ttft"}, []string{"request-rate", "config.file"}, "usage: llm-prober mock-vllm [<flags>]"},
		{[]string{"--help"}, nil, []string{"help", "version", "config.file", "log.level", "web.listen-address"},
			[]string{"url", "request-rate", "max-regression", "prometheus.url", "listen-address"}, "usage: llm-prober probe [<flags>]"},
	} {
		out, err := exec.Command(binary, c.args...).Output()
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		got := helpFlags(string(out))
		if c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("%q lists flags\n%q\nwant\n%q", c.args, got, c.want)
		}
		seen := map[string]bool{}
		for _, f := range got {
			if seen[f] {
				t.Errorf("%q lists --%s twice", c.args, f)
			}
			seen[f] = true
		}
		for _, f := range c.has {
			if !seen[f] {
				t.Errorf("%q lacks --%s", c.args, f)
			}
		}
		for _, f := range c.not {
			if seen[f] {
				t.Errorf("%q lists --%s", c.args, f)
			}
		}
		if !strings.HasPrefix(string(out), c.usageLine+"\n") {
			t.Errorf("%q: usage line is not %q:\n%s", c.args, c.usageLine, out)
		}
	}
}

// parseBench parses args with a fresh app, as the binary does.
// runConfig is what a parse set for a run: b without its commands.
// With the run's flags on run, bench's default subcommand, `bench
// [flags]` parses as it did when they were bench's: to a run, with the
// config of `bench run [flags]`; `bench compare` takes its own flags,
// before or after its files, and refuses the run's.
// A flag the command lacks is a bad flag: exit 2.
func TestHelpBadFlagExit(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--bogus"},
		{"bench", "compare", "a.json", "b.json", "--request-rate", "8"},
	} {
		out, err := exec.Command(binary, args...).CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "unknown long flag") {
			t.Errorf("%q: %v, want exit 2 on an unknown flag:\n%s", args, err, out)
		}
	}
}
