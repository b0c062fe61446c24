package resultfile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadKey finds a key before the requests (stopping there: the rest of
// the file may even be cut off) or after them, gives nil without it, and
// refuses a sweep's file and a key over the cap.
func TestReadKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctx := context.Background()
	for name, c := range map[string]struct{ body, want string }{
		"before, rest cut off": {`{"a": 1, "k": {"x": [1, 2]}, "requests": [{"index": 0}, {"ind`, `{"x": [1, 2]}`},
		"after the requests":   {`{"a": 1, "requests": [{"index": 0}, {}], "ttfts": [1], "k": "v"}`, `"v"`},
		"absent":               {`{"a": 1, "requests": []}`, ``},
	} {
		raw, err := ReadKey(ctx, write(name, c.body), "k")
		if err != nil || string(raw) != c.want {
			t.Errorf("%s: %s, %v; want %s", name, raw, err, c.want)
		}
	}
	if _, err := ReadKey(ctx, write("sweep", `{"points": [], "k": 1}`), "k"); err == nil || !strings.Contains(err.Error(), "a sweep's") {
		t.Errorf("a sweep's file: %v", err)
	}
	big := write("big", `{"a": "`+strings.Repeat("x", MaxHeadKey+1)+`", "k": 1}`)
	if _, err := ReadKey(ctx, big, "k"); err == nil || !strings.Contains(err.Error(), big) {
		t.Errorf("a key over the cap: %v", err)
	}
}
