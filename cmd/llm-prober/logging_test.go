package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// What an SRE sees at the default log level: a secret file that cannot be
// read is warned about at load, a target that fails says why once, and
// every line (the exporter toolkit's through logadapter.Slog too) has one
// timestamp key.
func TestLogsAtInfo(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "api-key")
	file := filepath.Join(dir, "llm-prober.yml")
	testutil.WriteFile(t, file, chatConfig+fmt.Sprintf(`targets:
  - {name: keyless, url: %q, model: m, modules: [chat], http_client_config: {authorization: {credentials_file: %q}}}
`, mockServer(t), missing))
	addr := testutil.FreeAddr(t)
	p := &proc{t: t, addr: addr, Proc: testutil.Start(t, "llm-prober", binary,
		"--web.listen-address="+addr, "--config.file="+file)}
	p.waitFor(20*time.Second, func() bool { return strings.Contains(p.Log(), `msg="probe started failing"`) })
	stopProc(t, p)
	out := p.Log()

	var secret, failing, listening string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(l, "cannot be read"):
			secret = l
		case strings.Contains(l, "probe started failing"):
			failing = l
		case strings.Contains(l, "Listening on"):
			listening = l
		}
		if l != "" && (!strings.HasPrefix(l, "level=") || strings.Count(l, " ts=") != 1 || strings.Index(l, " ts=") != strings.Index(l, " ")) || strings.Contains(l, " time=") {
			t.Errorf("want one timestamp key, ts, after the level: %s", l)
		}
	}
	if !strings.Contains(secret, "level=warn") || !strings.Contains(secret, missing) {
		t.Errorf("no warning naming the unreadable API-key file:\n%s", out)
	}
	if !strings.Contains(failing, "level=warn") || !strings.Contains(failing, "target=keyless") || !strings.Contains(failing, "reason=") {
		t.Errorf("failing target not logged at warn with its reason:\n%s", out)
	}
	if listening == "" {
		t.Errorf("no line from the exporter toolkit to check the timestamp of:\n%s", out)
	}
}
