package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/config"
)

const unitFile = "systemd/llm-prober.service"

// TestSystemdSecrets: the unit's advice on secrets works as written
// (issue 33). A *_file path is read literally, so the advice to point it
// at ${CREDENTIALS_DIRECTORY} could not work: the unit gives a
// LoadCredential= line and the full path the credential gets,
// /run/credentials/<unit>/<id>, with the same id and unit name.
func TestSystemdSecrets(t *testing.T) {
	raw, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	unit := string(raw)
	load := regexp.MustCompile(`(?m)^#?LoadCredential=([A-Za-z0-9_.-]+):(/\S+)$`).FindStringSubmatch(unit)
	if load == nil {
		t.Fatalf("%s: no LoadCredential=ID:PATH line", unitFile)
	}
	path := "/run/credentials/" + filepath.Base(unitFile) + "/" + load[1]
	if !strings.Contains(unit, "credentials_file: "+path+"}") {
		t.Errorf("%s: the config example does not read %s, where LoadCredential=%s:… puts it", unitFile, path, load[1])
	}
	doc, err := os.ReadFile("../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), path) || !strings.Contains(string(doc), strings.TrimPrefix(load[0], "#")) {
		t.Errorf("docs/deployment.md does not give the unit's %s and %s", load[0], path)
	}
	for i, line := range strings.Split(unit, "\n") {
		if strings.Contains(line, "CREDENTIALS_DIRECTORY") && !strings.Contains(line, "read as written") {
			t.Errorf("%s:%d: advises $CREDENTIALS_DIRECTORY in a path, which the config does not expand: %s", unitFile, i+1, line)
		}
	}
}

// TestCredentialsDirectoryNotExpanded shows why: with CREDENTIALS_DIRECTORY
// set and the file in it, --config.check's file check cannot read
// ${CREDENTIALS_DIRECTORY}/token.
func TestCredentialsDirectoryNotExpanded(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CREDENTIALS_DIRECTORY", dir)
	cfgFile := filepath.Join(t.TempDir(), "llm-prober.yml")
	yml := "modules:\n  chat:\n    messages:\n      - {role: user, content: hi}\n" +
		"targets:\n  - name: t\n    url: http://127.0.0.1:8000\n    model: m\n    modules: [chat]\n" +
		"    http_client_config:\n      authorization:\n        credentials_file: ${CREDENTIALS_DIRECTORY}/token\n"
	if err := os.WriteFile(cfgFile, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	if errs := config.CheckFiles(cfg); len(errs) != 1 {
		t.Errorf("config.CheckFiles: %v, want the one unreadable ${CREDENTIALS_DIRECTORY}/token", errs)
	}
}
