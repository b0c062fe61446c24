package examples

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docPages are the README and docs/ pages the drift checks read.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(pages, "../README.md")
}

// Figures that drift with every dependency bump are left to
// scripts/sizes.sh, not written down (issue 33: the README said about
// 280 and 920 modules where 84 and 498 were measured, deployment.md a
// 44 MB and 16 MB binary where 47.6 and 20.3 MB were).
func TestDocsNoDriftingSizes(t *testing.T) {
	drifting := regexp.MustCompile(`(?i)\(about [\d,]+[,:] |binary is [\d.]+ ?MB|kubernetes_sd_configs` + "`" + ` \([\d.]+ ?MB\)`)
	for _, p := range docPages(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := drifting.FindString(line); m != "" {
				t.Errorf("%s:%d: %q: a module count or binary size no test measures (scripts/sizes.sh prints them)", p, i+1, m)
			}
		}
	}
}

// Every docker build the docs give passes the revision: the build
// context has no .git, so without it the image says revision: unknown.
func TestDocsDockerBuildsPassRevision(t *testing.T) {
	files := append(docPages(t), "../Dockerfile", "../deploy/kubernetes/example/kustomization.yaml")
	build := regexp.MustCompile(`docker (buildx )?build\b`)
	found := 0
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			if !build.MatchString(lines[i]) || strings.Contains(lines[i], "docker buildx build` or") {
				continue
			}
			// The command, with its continuation lines.
			cmd := lines[i]
			for j := i; strings.HasSuffix(strings.TrimSpace(lines[j]), `\`) && j+1 < len(lines); j++ {
				cmd += " " + lines[j+1]
			}
			found++
			if !strings.Contains(cmd, "--build-arg REVISION=") {
				t.Errorf("%s:%d: a docker build without --build-arg REVISION=: %s", p, i+1, strings.TrimSpace(lines[i]))
			}
		}
	}
	if found < 4 {
		t.Errorf("found %d docker builds in the docs, want at least 4", found)
	}
}

// The README's commands run the binary its quick start builds
// (./llm-prober); a page whose examples run llm-prober from the PATH says
// how to put it there (issue 33: the bench and capacity-loop examples
// assumed it).
func TestDocsSayWhereTheBinaryIs(t *testing.T) {
	for _, p := range docPages(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inCode, fromPath := false, 0
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "```"):
				inCode = !inCode && (strings.HasPrefix(line, "```sh") || strings.HasPrefix(line, "```bash"))
			case inCode && strings.HasPrefix(strings.TrimSpace(line), "llm-prober "):
				fromPath++
			}
		}
		if fromPath == 0 {
			continue
		}
		if filepath.Base(p) == "README.md" {
			t.Errorf("README.md: %d commands run llm-prober from the PATH; the quick start builds ./llm-prober", fromPath)
		} else if !strings.Contains(string(b), "go install ./cmd/llm-prober") {
			t.Errorf("%s: %d commands run llm-prober from the PATH, and the page does not say how to put it there", p, fromPath)
		}
	}
}
