package resultfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// bench compare's files: a FIFO is refused without blocking, and a file
// of more requests than the cap with a clear error (300 MB files cost
// over 3 GiB before).
func TestReadRunFileBounds(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "run.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRunFile(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: %v", err)
	}
	defer func(n int) { maxRequests = n }(maxRequests)
	maxRequests = 2
	req := `{"ttft": 0.1, "tpot": 0.01, "latency": 1, "success": true}`
	p := filepath.Join(dir, "many.json")
	if err := os.WriteFile(p, []byte(`{"requests": [`+strings.Repeat(req+",", 2)+req+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRunFile(p); err == nil || !strings.Contains(err.Error(), "many.json: requests: more than 2 requests") {
		t.Errorf("3 requests, cap 2: %v", err)
	}
}
