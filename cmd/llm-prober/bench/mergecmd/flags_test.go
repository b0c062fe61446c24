package mergecmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/cmd/llm-prober/bench/exitcode"
)

// mergeCLI parses args as `llm-prober bench merge` (here under a bare
// bench command: bench's own are cmd/llm-prober/bench's tests) and runs it.
func mergeCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	app := kingpin.New("llm-prober", "")
	c := NewCommand(app.Command("bench", ""))
	if _, err := app.Parse(append([]string{"bench", "merge"}, args...)); err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	code, err := c.Main(t.Context(), &out, &log)
	if err != nil {
		log.WriteString(err.Error())
	}
	return code, log.String()
}

// Bad flags and files that are no shard's are refused with exit 2 and
// the flag or file named, before anything is written (the sweep's flags:
// loadtest/sweep's TestFlags).
func TestMergeRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte(`{"completed": 3, "requests": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{junk, "--max-clock-offset=-1ms"}, "--max-clock-offset cannot be negative"},
		{[]string{junk, "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{junk, "--report", filepath.Join(dir, "no", "r.html")}, "no such directory"},
		{[]string{junk}, "not a shard's file"},
		{[]string{filepath.Join(dir, "missing.json")}, "missing.json"},
	} {
		code, log := mergeCLI(t, c.args...)
		if code != exitcode.BadInput || !strings.Contains(log, c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", c.args, code, exitcode.BadInput, c.want, log)
		}
	}
}
