package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzLoad feeds arbitrary YAML to the loader: it must not panic, it
// must return quickly either a config or an *Error, and a loaded config
// must marshal without showing its secrets. The seeds include aliases,
// merge keys and the hostile files (alias bomb, merge chain, cycles).
func FuzzLoad(f *testing.F) {
	f.Setenv("LLM_PROBER_TEST_TOKEN", "fuzz-token-value")
	f.Setenv("LLM_PROBER_TEST_HEADER", "fuzz-header-value")
	files, _ := filepath.Glob("testdata/bad/*.yml")
	hostile, _ := filepath.Glob("testdata/hostile/*.yml")
	files = append(append(files, hostile...), "testdata/good.yml")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("targets: [{name: a, url: 'http://x', model: m, modules: [c]}]\nmodules: {c: {messages: [{role: user, content: hi}]}}\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Add([]byte(minimal + "    http_client_config: &h {follow_redirects: true}\n    server_metrics: {http_client_config: *h}\n"))
	f.Add([]byte(minimal + "    <<: {interval: 5s, timeout: 1s}\n  - {<<: [{name: u, model: y}, {url: 'http://z'}], modules: [m]}\n"))
	f.Add([]byte("b: &b {x: &c [1, 2]}\nc: {<<: [*b, *b], y: *c}\n"))
	f.Add([]byte(discoveryYAML))
	f.Add([]byte("target_discovery: [[x], {name: [1], file_sd_configs: x}]\ntargets: [{http_client_config: [1]}, [2]]\n"))
	f.Add([]byte("modules: {m: {messages: [{role: user, content: hi}]}}\ntarget_discovery: [{name: a, file_sd_configs: [{files: [x.json]}, null], http_sd_configs: &h [{url: 'http://x'}], kubernetes_sd_configs: [{role: pod}], relabel_configs: [{action: keep}], template: {modules: [m]}}, {<<: {name: b}, file_sd_configs: *h}]\n"))
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
		start := time.Now()
		cfg, err := Load(data, "testdata/fuzz.yml")
		if d := time.Since(start); d > hostileTimeBound {
			t.Fatalf("Load took %s", d)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if cfg != nil {
				t.Fatal("Load returned both a config and an error")
			}
			return
		}
		if cfg == nil {
			t.Fatal("Load returned neither a config nor an error")
		}
		for _, err := range CheckFiles(cfg) {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("CheckFiles error %T is not an *Error: %v", err, err)
			}
		}
		out := cfg.String()
		for _, secret := range secrets {
			if strings.Contains(out, secret) {
				t.Fatalf("redacted config shows secret %q:\n%s", secret, out)
			}
		}
	})
}
