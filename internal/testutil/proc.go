package testutil

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/e2ekit"
)

// Proc is a process a test started (an e2ekit.Proc), stopped by its PID when
// the test ends, with its output kept for the test's log.
type Proc struct {
	*e2ekit.Proc
	log LockedBuffer
}

// Start runs bin with args. At the end of the test it is stopped (SIGTERM
// to its PID, SIGKILL after 10 s) and, if the test failed, the tail of
// its output is logged.
func Start(t testing.TB, name, bin string, args ...string) *Proc {
	t.Helper()
	p := &Proc{}
	lp, err := e2ekit.Start(name, &p.log, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	p.Proc = lp
	t.Logf("started %s (pid %d): %s %s", name, p.Pid(), filepath.Base(bin), strings.Join(args, " "))
	t.Cleanup(func() {
		p.Stop(t)
		if t.Failed() {
			out := p.Log()
			if len(out) > 6000 {
				out = "...\n" + out[len(out)-6000:]
			}
			t.Logf("---- %s log (tail) ----\n%s", name, out)
		}
	})
	return p
}

// Stop sends SIGTERM and waits, killing the process after 10 s.
func (p *Proc) Stop(t testing.TB) {
	if err := p.Proc.Stop(10 * time.Second); err != nil {
		t.Log(err)
	}
}

// Log is everything the process wrote to stdout and stderr so far.
func (p *Proc) Log() string { return p.log.String() }

// WaitHTTP polls u until it answers 200 OK, failing the test after
// timeout or, with the process's output, when p exits first.
func WaitHTTP(t testing.TB, p *Proc, u string, timeout time.Duration) {
	t.Helper()
	if err := e2ekit.WaitHTTP(p.Proc, u, timeout); err != nil {
		if errors.Is(err, e2ekit.ErrExited) {
			t.Fatalf("%v:\n%s", err, p.Log())
		}
		t.Fatal(err)
	}
}

// FreeAddr returns a 127.0.0.1 address whose port was free a moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	addr, err := e2ekit.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// LockedBuffer is a buffer that goroutines write to while a test reads it:
// a process's output, a logger's lines.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
