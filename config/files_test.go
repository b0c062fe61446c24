package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// --config.check reports every file the config names that cannot be read,
// as promtool does; Load does not, so that a running prober keeps
// reloading while, say, a CA file is still being provisioned.
func TestCheckFiles(t *testing.T) {
	c := loadGood(t)
	got := errStrings(CheckFiles(c))
	ca := filepath.Join("testdata", "certs", "ca.pem")
	want := []string{
		"testdata/good.yml:57: targets[0].http_client_config.tls_config.ca_file: cannot read " + ca + ": no such file or directory",
		"testdata/good.yml:57: targets[1].http_client_config.tls_config.ca_file: cannot read " + ca + ": no such file or directory",
		"testdata/good.yml:57: targets[1].server_metrics.http_client_config.tls_config.ca_file: cannot read " + ca + ": no such file or directory",
		"testdata/good.yml:100: targets[2].http_client_config.oauth2.client_secret_file: cannot read /etc/llm-prober/oauth-secret: no such file or directory",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckFilesEveryField(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yml")
	if err := os.WriteFile(filepath.Join(dir, "here"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o700); err != nil {
		t.Fatal(err)
	}
	body := minimal + `    http_client_config:
      basic_auth: {username_file: here, password_file: gone1}
      tls_config: {ca_file: here, cert_file: gone2, key_file: adir}
      http_headers:
        X-Key: {files: [here, gone3]}
  - name: u
    url: http://127.0.0.1:8001
    model: x
    modules: [m]
    http_client_config:
      bearer_token_file: gone4
    server_metrics:
      http_client_config:
        oauth2:
          client_id: id
          client_secret_file: here
          token_url: http://127.0.0.1:1/token
          tls_config: {ca_file: gone5}
  - name: w
    url: http://127.0.0.1:8002
    model: x
    modules: [m]
    server_metrics:
      http_client_config: {authorization: {credentials_file: gone6}}
`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(errStrings(CheckFiles(c)), "\n")
	for _, want := range []string{
		file + ":11: targets[0].http_client_config.basic_auth.password_file: cannot read " + filepath.Join(dir, "gone1") + ": no such file or directory",
		file + ":12: targets[0].http_client_config.tls_config.cert_file: cannot read " + filepath.Join(dir, "gone2"),
		file + ":12: targets[0].http_client_config.tls_config.key_file: " + filepath.Join(dir, "adir") + " is a directory",
		file + ":14: targets[0].http_client_config.http_headers.X-Key.files[1]: cannot read " + filepath.Join(dir, "gone3"),
		file + ":20: targets[1].http_client_config.bearer_token_file: cannot read " + filepath.Join(dir, "gone4"),
		file + ":27: targets[1].server_metrics.http_client_config.oauth2.tls_config.ca_file: cannot read " + filepath.Join(dir, "gone5"),
		file + ":33: targets[2].server_metrics.http_client_config.authorization.credentials_file: cannot read " + filepath.Join(dir, "gone6"),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n") + 1; n != 7 || strings.Contains(got, filepath.Join(dir, "here")) {
		t.Errorf("want exactly the 7 unreadable files, got\n%s", got)
	}
}

func errStrings(errs []error) []string {
	out := make([]string, len(errs))
	for i, err := range errs {
		out[i] = err.Error()
	}
	return out
}

// --config.check refuses a FIFO without waiting for a writer, also when it
// replaces a named file between a stat and an open (a plain open of a FIFO
// blocks until a writer comes, and the check hung). The watchdog opens the
// FIFO for writing, which frees a stuck open, so that a regression fails
// the test instead of hanging the suite.
func TestCheckFilesFIFOSwap(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := readable(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: %v", err)
	}
	p, file := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.FIFOSwap(t, p, file, fifo, 2000, readable)
}
