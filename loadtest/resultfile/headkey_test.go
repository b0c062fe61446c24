package resultfile

import (
	"context"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// ReadKey finds a key before the requests (stopping there: the rest of
// the file may even be cut off) or after them, gives nil without it, and
// refuses a sweep's file and a key over the cap.
func TestReadKey(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]struct{ body, want string }{
		"before, rest cut off": {`{"a": 1, "k": {"x": [1, 2]}, "requests": [{"index": 0}, {"ind`, `{"x": [1, 2]}`},
		"after the requests":   {`{"a": 1, "requests": [{"index": 0}, {}], "ttfts": [1], "k": "v"}`, `"v"`},
		"absent":               {`{"a": 1, "requests": []}`, ``},
	} {
		raw, err := ReadKey(ctx, testutil.TempFile(t, name, c.body), "k")
		if err != nil || string(raw) != c.want {
			t.Errorf("%s: %s, %v; want %s", name, raw, err, c.want)
		}
	}
	if _, err := ReadKey(ctx, testutil.TempFile(t, "sweep", `{"points": [], "k": 1}`), "k"); err == nil || !strings.Contains(err.Error(), "a sweep's") {
		t.Errorf("a sweep's file: %v", err)
	}
	big := testutil.TempFile(t, "big", `{"a": "`+strings.Repeat("x", MaxHeadKey+1)+`", "k": 1}`)
	if _, err := ReadKey(ctx, big, "k"); err == nil || !strings.Contains(err.Error(), big) {
		t.Errorf("a key over the cap: %v", err)
	}
}
