package examples

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Every relative link of the repository's Markdown (README, CHANGELOG,
// docs/) names a file or directory that exists, and every #anchor names a
// heading of the page it points into, as GitHub derives anchors from
// headings.
func TestDocsLinksResolve(t *testing.T) {
	pages := markdownFiles(t)
	if len(pages) < 10 {
		t.Fatalf("found %d Markdown files: %v", len(pages), pages)
	}
	anchors := map[string]map[string]bool{} // page (slash path from the root) -> anchors
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		anchors[page] = headingAnchors(string(b))
		return anchors[page]
	}
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range markdownLinks(string(b)) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(l.target, "#")
			dest := page
			if path != "" {
				dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), path)))
				if strings.HasPrefix(dest, "../") {
					t.Errorf("%s:%d: %s leaves the repository", page, l.line, l.target)
					continue
				}
				if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s:%d: %s: no such file", page, l.line, l.target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			if !anchorsOf(dest)[anchor] {
				t.Errorf("%s:%d: %s: %s has no heading with anchor #%s", page, l.line, l.target, dest, anchor)
			}
		}
	}
	if checked < 80 {
		t.Errorf("checked only %d relative links", checked)
	}
}

// markdownFiles lists the repository's Markdown files, slash paths from
// the root, leaving out hidden directories, testdata and node_modules.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := d.Name()
		if d.IsDir() {
			if path != ".." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(base, ".md") {
			files = append(files, filepath.ToSlash(strings.TrimPrefix(path, "../")))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

type mdLink struct {
	line   int
	target string
}

var (
	linkRE     = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	headingRE  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	inlineRE   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// markdownLinks returns the inline links and images of doc outside code
// blocks and code spans.
func markdownLinks(doc string) []mdLink {
	var links []mdLink
	fenced := false
	for i, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		// A code span inside a link's text stays part of the link: only
		// its content goes.
		line = codeSpanRE.ReplaceAllString(line, "``")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			links = append(links, mdLink{line: i + 1, target: m[1]})
		}
	}
	return links
}

// headingAnchors returns the anchors GitHub gives doc's headings: the
// heading's text lower-cased, without punctuation, spaces as hyphens, and
// -1, -2, ... on repeats.
func headingAnchors(doc string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		text := inlineRE.ReplaceAllString(m[1], "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ' || r == '-':
				b.WriteByte('-')
			case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// The anchors match GitHub's for the headings the docs have.
func TestHeadingAnchors(t *testing.T) {
	doc := "# Top\n## Probe metrics (labels `target`, `model`, `module`)\n## 6. Fleet: sharded replicas and discovery (issue 13)\n" +
		"```\n# not a heading\n```\n## Twice\n## Twice\n### `cache: paired` → warm_up\n## A [link](x.md) here\n"
	got := headingAnchors(doc)
	for _, want := range []string{"top", "probe-metrics-labels-target-model-module", "6-fleet-sharded-replicas-and-discovery-issue-13",
		"twice", "twice-1", "cache-paired--warm_up", "a-link-here"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a comment in a code block made an anchor")
	}
}
