package workload

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// bigElementFile writes a real file of head, n bytes of 'x', then tail.
func bigElementFile(t *testing.T, name, head, tail string, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := strings.Repeat("x", 1<<20)
	_, err = f.WriteString(head)
	for ; n > 0 && err == nil; n -= len(chunk) {
		_, err = f.WriteString(chunk[:min(n, len(chunk))])
	}
	if err == nil {
		_, err = f.WriteString(tail)
	}
	if err := errorsJoin(err, f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// allocated is what load allocates in all, in MiB.
func allocated(load func() error) (float64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := load()
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20), err
}

// A single 64 MiB prompt is refused at the 16 MiB element cap having
// allocated no more than twice the cap (the string kept as it grows):
// json.Decoder buffered the conversation whole first (+101 MiB for a
// 100 MB prompt in the hostile soak). A JSONL line is cut the same way.
func TestDatasetHugeStringBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are counted without the race detector")
	}
	ctx := context.Background()
	const n = 64 << 20
	for _, c := range []struct {
		name, head, tail, want string
		load                   func(string) error
	}{
		{"sharegpt.json", `[{"conversations": [{"from": "human", "value": "`, `"}]}]`, "conversation 1: longer than the element cap",
			func(p string) error { _, err := LoadShareGPT(ctx, p, DatasetOptions{}); return err }},
		{"conversations.json", `[{"id": 1, "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "`, `"}]}]`, "conversation 1: longer than the element cap",
			func(p string) error { _, err := LoadConversations(ctx, p, 0, DatasetOptions{}); return err }},
		{"skipped.json", `[{"other": "`, `", "conversations": []}]`, "conversation 1: longer than the element cap",
			func(p string) error { _, err := LoadShareGPT(ctx, p, DatasetOptions{}); return err }},
		{"prompts.jsonl", `{"output_tokens": 5, "prompt": "`, `"}` + "\n", "prompts.jsonl:1: a line longer than",
			func(p string) error { _, err := LoadJSONL(ctx, p, DatasetOptions{}); return err }},
	} {
		p := bigElementFile(t, c.name, c.head, c.tail, n)
		mib, err := allocated(func() error { return c.load(p) })
		t.Logf("%s: %.1f MiB allocated: %v", c.name, mib, err)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if limit := 2*float64(maxDatasetElement)/(1<<20) + 2; mib > limit {
			t.Errorf("%s: %.1f MiB allocated refusing one 64 MiB string, want at most %.0f (twice the 16 MiB element cap)", c.name, mib, limit)
		}
	}
}
