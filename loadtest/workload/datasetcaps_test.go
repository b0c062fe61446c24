package workload

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// ShareGPT and JSONL datasets are read element by element under caps:
// one giant conversation or line, too many elements, too much text each
// fail with a clear error (300 MB files cost > 3 GiB before); a FIFO is
// refused without blocking.
func TestDatasetCaps(t *testing.T) {
	defer func(e, x, n int) { maxDatasetElement, maxDatasetText, maxDatasetEntries = e, x, n }(maxDatasetElement, maxDatasetText, maxDatasetEntries)
	maxDatasetElement, maxDatasetText, maxDatasetEntries = 1000, 3000, 5
	conv := func(n int) string {
		return `{"conversations": [{"from": "human", "value": "` + strings.Repeat("w ", n/2) + `"}, {"from": "gpt", "value": "ok ok ok ok"}]}`
	}
	jsonl := func(n int) string {
		return `{"prompt": "` + strings.Repeat("w ", n/2) + `", "output_tokens": 5}` + "\n"
	}
	ctx := context.Background()
	for _, c := range []struct {
		name, body, want string
	}{
		{"giant.json", "[" + conv(2000) + "]", "conversation 1: longer than the element cap"},
		{"many.json", "[" + strings.TrimSuffix(strings.Repeat(conv(10)+",", 6), ",") + "]", "more than 5 conversations"},
		{"text.json", "[" + strings.TrimSuffix(strings.Repeat(conv(900)+",", 4), ",") + "]", "more than 0 MiB of text by conversation 4"},
		{"giant.jsonl", jsonl(2000), "giant.jsonl:1: a line longer than 1000 bytes"},
		{"many.jsonl", strings.Repeat(jsonl(10), 6), "many.jsonl:6: more than 5 prompts"},
		{"text.jsonl", strings.Repeat(jsonl(900), 4), "text.jsonl:4: more than 0 MiB of prompts"},
	} {
		p := testutil.TempFile(t, c.name, c.body)
		var err error
		if strings.HasSuffix(c.name, ".jsonl") {
			_, err = LoadJSONL(ctx, p, DatasetOptions{})
		} else {
			_, err = LoadShareGPT(ctx, p, DatasetOptions{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	fifo := filepath.Join(t.TempDir(), "d.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, load := range []func() error{
		func() error { _, err := LoadShareGPT(ctx, fifo, DatasetOptions{}); return err },
		func() error { _, err := LoadJSONL(ctx, fifo, DatasetOptions{}); return err },
		func() error { _, err := LoadConversations(ctx, fifo, time.Second, DatasetOptions{}); return err },
	} {
		if err := load(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO: %v", err)
		}
	}
}
