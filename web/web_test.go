package web

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil"
)

// testConfig is a fast config with one module, chat, and one target per
// name and URL pair.
const testConfig = `
global: {interval: %s, timeout: %s}
modules:
  chat:
    messages: [{role: user, content: hi}]
    max_tokens: 8
    ignore_eos: true
targets:
  - {name: %s, url: %q, model: mock-model, modules: [chat]}
`

// loadConfig writes and loads a config of one target; the SafeConfig
// holds it as the running prober's would.
func loadConfig(t *testing.T, interval, timeout, target, url string) *config.SafeConfig {
	t.Helper()
	file := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, file, fmt.Sprintf(testConfig, interval, timeout, target, url))
	safe := config.NewSafeConfig(nil)
	if err := safe.Reload(file); err != nil {
		t.Fatal(err)
	}
	return safe
}
