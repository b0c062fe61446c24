package backend_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// Every registered backend, and auto, is a name a configuration file and
// a discovered target may use; anything else is refused naming them all.
func TestConfigAcceptsEveryBackend(t *testing.T) {
	dir := t.TempDir()
	load := func(name string) (*config.Config, error) {
		path := filepath.Join(dir, "llm-prober.yml")
		yml := fmt.Sprintf(`
modules:
  m:
    messages: [{role: user, content: hi}]
targets:
  - name: t
    url: http://127.0.0.1:8000
    model: x
    backend: %q
    modules: [m]
target_discovery:
  - name: sd
    file_sd_configs:
      - files: [%q]
    template:
      modules: [m]
      model: x
`, name, filepath.Join(dir, "*.json"))
		if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
			t.Fatal(err)
		}
		return config.LoadFile(path)
	}
	for _, name := range backend.Names() {
		c, err := load(name)
		if err != nil {
			t.Errorf("backend %q refused: %v", name, err)
			continue
		}
		if got := c.Targets[0].Backend; string(got) != name {
			t.Errorf("backend %q loaded as %q", name, got)
		}
		tg, err := c.TargetDiscovery[0].NewTarget(model.LabelSet{"__address__": "h:1", "__backend__": model.LabelValue(name)})
		if err != nil || string(tg.Backend) != name {
			t.Errorf("discovered backend %q: %v, %v", name, tg, err)
		}
	}
	_, err := load("ollama")
	want := fmt.Sprintf("unknown backend %q (want one of %v)", "ollama", backend.Names())
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "targets[0].backend") {
		t.Errorf("unknown backend: %v, want %s at targets[0].backend", err, want)
	}
}
