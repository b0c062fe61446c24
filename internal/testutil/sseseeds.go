package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// AddSSESeeds seeds an SSE fuzz target (prober's FuzzReadStream,
// prober/stream's FuzzSSE) with the captured streams in dir (the
// repository's prober/testdata/sse) plus edge cases of the framing. A dir
// with no captures fails, so that a moved folder cannot silently shrink
// the corpus to the edge cases.
func AddSSESeeds(f *testing.F, dir string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.sse"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no SSE captures in %s (%v)", dir, err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "\n\n", ": ping\n\n", "data: [DONE]\n\n", "data:\n\n", "data: {}\r\n\r\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\ndata: \n\n",
		"data: {\"error\":{\"message\":\"boom\"}}\n\n",
		"data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":\"length\"}],\"usage\":{\"completion_tokens\":-5}}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":{\"completion_tokens\":1000000000}}\n\ndata: [DONE]\n\n",
		"event: x\nid: 1\nretry: 5\ndata: {}\n\n", "data: {\"choices\":null}\n\n", "data",
	} {
		f.Add([]byte(s))
	}
}
