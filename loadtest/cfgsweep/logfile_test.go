package cfgsweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log file stops at its cap, says how much it left out, and never
// fails the writes that feed the ring.
func TestLogFileCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	l, err := createLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l.max = 10 // MaxLogFileBytes, scaled down
	for _, w := range []string{"0123456", "789abc", "def"} {
		if n, err := l.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("write %q: %d, %v", w, n, err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if want := "0123456789\n[llm-prober: log cut at 0 MiB; 6 bytes more were not written]\n"; string(b) != want {
		t.Errorf("%q, want %q", b, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}
	// A file that cannot be written is no error for the server's pipe.
	l, err = createLogFile(filepath.Join(t.TempDir(), "t.log"))
	if err != nil {
		t.Fatal(err)
	}
	_ = l.f.Close()
	if n, err := l.Write([]byte("x")); n != 1 || err != nil {
		t.Errorf("write to a closed file: %d, %v", n, err)
	}
	if err := l.Close(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("close: %v", err)
	}
}
