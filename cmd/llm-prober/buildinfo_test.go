package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// A plain `go build` (TestMain's, like the README's) sets nothing at link
// time: --version still names the module version and, where the build
// stamped one, the commit.
func TestVersionFromBuildInfo(t *testing.T) {
	out, err := exec.Command(binary, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	meta, err := exec.Command("go", "version", "-m", binary).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, meta)
	}
	mod := regexp.MustCompile(`(?m)^\tmod\t\S+\t(\S+)`).FindSubmatch(meta)
	if mod == nil {
		t.Fatalf("no main module in the build info:\n%s", meta)
	}
	if want := "version " + string(mod[1]) + " "; !strings.Contains(string(out), want) {
		t.Errorf("--version does not say %q:\n%s", want, out)
	}
	if rev := regexp.MustCompile(`vcs\.revision=(\S+)`).FindSubmatch(meta); rev != nil {
		if !strings.Contains(string(out), "revision: "+string(rev[1])) {
			t.Errorf("--version lacks the stamped revision %s:\n%s", rev[1], out)
		}
	} else {
		t.Log("build not VCS-stamped (-buildvcs=false or no git): the revision is not checked")
	}
}
