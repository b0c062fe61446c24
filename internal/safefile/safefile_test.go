package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO, a directory and /dev/zero are refused without blocking; a file
// over the cap is refused unread; one at the cap is read whole.
func TestOpenRefusesWhatIsNoRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, dir, "/dev/zero"} {
		if _, err := Open(p, 1<<20); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want a refusal naming it", p, err)
		}
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 101), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("101 bytes, cap 100: %v", err)
	}
	if b, err := ReadFile(big, 101); err != nil || len(b) != 101 {
		t.Errorf("101 bytes, cap 101: %d, %v", len(b), err)
	}
	if _, err := Open(filepath.Join(dir, "none"), 1); err == nil || strings.Contains(err.Error(), "stat ") {
		t.Errorf("missing file: %v", err)
	}
}

// A file that grows past the cap after the check fails at the cap.
func TestCapReaderStopsAtCap(t *testing.T) {
	c := &capReader{r: strings.NewReader(strings.Repeat("x", 50)), left: 10, limit: 10, path: "f"}
	var got int
	buf := make([]byte, 4)
	var err error
	for err == nil {
		var n int
		n, err = c.Read(buf)
		got += n
	}
	if !errors.Is(err, ErrTooLarge) || got != 10 {
		t.Errorf("read %d bytes, %v; want 10 and the cap", got, err)
	}
}
