package e2e

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var (
	promOnce sync.Once
	promPath string
)

// prometheusBinary is Prometheus from tools/go.mod: $PROMETHEUS when
// scripts/test.sh has built it already, else built once for this package
// into a temporary directory (left to the OS: tests of one process share it).
func prometheusBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PROMETHEUS"); p != "" {
		return p
	}
	promOnce.Do(func() {
		dir, err := os.MkdirTemp("", "llm-prober-e2e-prometheus")
		if err != nil {
			t.Fatal(err)
		}
		promPath = filepath.Join(dir, "prometheus")
		goBuild(t, filepath.Join(repoRoot(t), "tools"), "github.com/prometheus/prometheus/cmd/prometheus", promPath)
	})
	if promPath == "" {
		t.Fatal("building Prometheus failed in an earlier test")
	}
	return promPath
}
