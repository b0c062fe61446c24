package testutil

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Proc is a process a test started, stopped by its PID when the test ends.
type Proc struct {
	Name string
	Cmd  *exec.Cmd
	log  lockedBuffer
	done chan struct{}
	err  error // from Wait, once done is closed
}

// Start runs bin with args. At the end of the test it is stopped (SIGTERM
// to its PID, SIGKILL after 10 s) and, if the test failed, the tail of
// its output is logged.
func Start(t testing.TB, name, bin string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Name: name, Cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.Cmd.Stdout, p.Cmd.Stderr = &p.log, &p.log
	if err := p.Cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Logf("started %s (pid %d): %s %s", name, p.Cmd.Process.Pid, filepath.Base(bin), strings.Join(args, " "))
	go func() { p.err = p.Cmd.Wait(); close(p.done) }()
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
	if p.Exited() {
		return
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Logf("%s (pid %d) did not stop on SIGTERM; killing it", p.Name, p.Cmd.Process.Pid)
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is the process's exit error (nil for exit 0), once Done is closed.
func (p *Proc) Err() error {
	<-p.done
	return p.err
}

// Exited reports whether the process has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Log is everything the process wrote to stdout and stderr so far.
func (p *Proc) Log() string { return p.log.String() }

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
