package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary YAML to the loader: it must not panic, every
// error must be an *Error, and a loaded config must marshal without
// showing its secrets.
func FuzzLoad(f *testing.F) {
	f.Setenv("LLM_PROBER_TEST_TOKEN", "fuzz-token-value")
	f.Setenv("LLM_PROBER_TEST_HEADER", "fuzz-header-value")
	files, _ := filepath.Glob("testdata/bad/*.yml")
	files = append(files, "testdata/good.yml")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("targets: [{name: a, url: 'http://x', model: m, modules: [c]}]\nmodules: {c: {messages: [{role: user, content: hi}]}}\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	secrets := []string{"fuzz-token-value", "fuzz-header-value"}
	for _, name := range []string{"testdata/secrets/sglang-password", "testdata/secrets/metrics-token"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		secrets = append(secrets, strings.TrimSpace(string(b)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// good.yml's relative secret files resolve against testdata/.
		cfg, err := Load(data, "testdata/fuzz.yml")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			return
		}
		out := cfg.String()
		for _, secret := range secrets {
			if strings.Contains(out, secret) {
				t.Fatalf("redacted config shows secret %q:\n%s", secret, out)
			}
		}
	})
}
