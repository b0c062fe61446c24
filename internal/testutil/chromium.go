package testutil

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Chromium finds a headless-capable Chromium: $CHROMIUM, else chromium,
// chromium-browser or google-chrome on the PATH. Without one the test is
// skipped with the reason, except in CI (CI=true or LLM_PROBER_E2E=1,
// where .ci/run installs Debian's chromium): there it fails, so that a
// browser check cannot silently stop running.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	why := "no chromium binary ($CHROMIUM, chromium, chromium-browser or google-chrome on the PATH); apt-get install chromium"
	if os.Getenv("CI") == "true" || os.Getenv("LLM_PROBER_E2E") == "1" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// ChromiumArgs are the flags of a headless run: no sandbox (tests run as
// root in containers), no GPU, a throw-away profile, no network chatter.
func ChromiumArgs(t testing.TB) []string {
	return []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + filepath.Join(t.TempDir(), "profile"),
		"--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-sync",
		"--disable-component-update", "--hide-scrollbars", "--mute-audio"}
}

// DumpDOM loads file in headless Chromium at the given window size and
// returns the DOM after its scripts ran (--dump-dom).
func DumpDOM(t testing.TB, file string, width, height int) string {
	t.Helper()
	bin := Chromium(t)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(ChromiumArgs(t), fmt.Sprintf("--window-size=%d,%d", width, height), "--dump-dom", "file://"+abs)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s --dump-dom: %v\n%s", bin, err, errb.String())
	}
	return out.String()
}
