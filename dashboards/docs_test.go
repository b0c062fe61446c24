package dashboards

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDocsUpToDate fails when docs/dashboards.md does not describe the
// panels as generated (every panel, its queries and what feeds it).
// Fix: cd dashboards && go generate ./...
func TestDocsUpToDate(t *testing.T) {
	files, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	gen, err := PanelDocs(files)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "dashboards.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := SpliceDocs(doc, gen)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, want) {
		t.Error("docs/dashboards.md is stale; run: cd dashboards && go generate ./...")
	}
}
