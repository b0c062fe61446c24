package targets

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
)

const fileSDPath = `
target_discovery:
  - name: files
    file_sd_configs:
      - files: [sd/*.json]
    relabel_configs:
      - source_labels: [model]
        target_label: __model__
      - regex: model
        action: labeldrop
      - source_labels: [__meta_filepath]
        target_label: file
    template:
      modules: [m]
      backend: vllm
`

// A file_sd file over the cap is never read past it: its targets stay
// those of its last good version, the file is counted and logged once by
// its real path; once it shrinks it is read again. Targets carry the real
// file's path in __meta_filepath, and a removed file's targets go.
func TestFileSDSizeCap(t *testing.T) {
	dir := t.TempDir()
	sd := filepath.Join(dir, "sd", "a.json")
	writeFile(t, sd, `[{"targets": ["10.0.0.1:8000", "10.0.0.2:8000"], "labels": {"model": "llama"}}]`)
	r := startFleet(t, loadConfig(t, dir, fileSDPath), Shard{Count: 1})
	cfg := r.waitFor(t, "10.0.0.1:8000", "10.0.0.2:8000")
	for _, tg := range cfg.Targets {
		if got := string(tg.Labels["file"]); got != sd {
			t.Errorf("%s: __meta_filepath %q, want the real file %q", tg.Name, got, sd)
		}
	}
	if got := r.metric(t, "llm_prober_discovery_files_too_large", "discovery=files"); got != 0 {
		t.Errorf("files too large: %v", got)
	}

	// Valid JSON, one byte over the cap: a new target in it is not seen.
	head := `[{"targets": ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.9:8000"], "labels": {"model": "llama", "pad": "`
	tail := `"}}]`
	writeFile(t, sd, head+strings.Repeat("x", MaxFileSDBytes+1-len(head)-len(tail))+tail)
	waitMetric(t, r, "llm_prober_discovery_files_too_large", "discovery=files", 1)
	time.Sleep(300 * time.Millisecond) // what a read of it would have sent by now
	if got := names(r.fleet.Derive(r.cfg).Targets); strings.Join(got, ",") != "10.0.0.1:8000,10.0.0.2:8000" {
		t.Errorf("over the cap: targets %v, want the last good set", got)
	}

	// Under the cap again: read.
	writeFile(t, sd, `[{"targets": ["10.0.0.3:8000"], "labels": {"model": "llama"}}]`)
	r.waitFor(t, "10.0.0.3:8000")
	if got := r.metric(t, "llm_prober_discovery_files_too_large", "discovery=files"); got != 0 {
		t.Errorf("files too large after it shrank: %v", got)
	}

	// Removed: its targets go.
	if err := os.Remove(sd); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sd", "b.json"), `[{"targets": ["10.0.0.4:8000"], "labels": {"model": "llama"}}]`)
	r.waitFor(t, "10.0.0.4:8000")
}

// Exactly the cap is read; one byte more is not.
func TestCopyCappedBoundary(t *testing.T) {
	dir := t.TempDir()
	d := &cappedFile{cfg: &cappedFileSD{limit: 10}, dir: dir, logger: log.NewNopLogger(),
		copies: map[string]string{}, names: map[string]string{}, refused: map[string]bool{}}
	src := filepath.Join(dir, "src.json")
	for _, c := range []struct {
		body   string
		tooBig bool
		copied string
	}{
		{"0123456789", false, "0123456789"},
		{"0123456789A", true, "0123456789"}, // the last good copy stays
		{"short", false, "short"},
	} {
		if err := os.WriteFile(src, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		dst := d.copyPath(src)
		if got := d.copyCapped(src, dst); got != c.tooBig {
			t.Errorf("%q: too big %v, want %v", c.body, got, c.tooBig)
		}
		if b, _ := os.ReadFile(dst); string(b) != c.copied {
			t.Errorf("%q: copy %q, want %q", c.body, b, c.copied)
		}
	}
}

// BenchmarkFileSDOversized reads a 50 MB file_sd file as the cap does (at
// most MaxFileSDBytes + 1) and as Prometheus's file discovery would (whole,
// with io.ReadAll): B/op is the memory each costs per refresh.
func BenchmarkFileSDOversized(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "big.json")
	if err := os.WriteFile(src, []byte(`[{"targets": ["a:1"], "labels": {"pad": "`+strings.Repeat("x", 50<<20)+`"}}]`), 0o600); err != nil {
		b.Fatal(err)
	}
	b.Run("capped", func(b *testing.B) {
		d := &cappedFile{cfg: &cappedFileSD{limit: MaxFileSDBytes}, dir: dir, logger: log.NewNopLogger(),
			copies: map[string]string{}, names: map[string]string{}, refused: map[string]bool{}}
		b.ReportAllocs()
		for b.Loop() {
			if !d.copyCapped(src, d.copyPath(src)) {
				b.Fatal("not refused")
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f, err := os.Open(src)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadAll(f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}
