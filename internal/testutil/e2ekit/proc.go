package e2ekit

import (
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// Proc is a process started by Start. It is only ever signalled by its
// own PID.
type Proc struct {
	Name string
	Cmd  *exec.Cmd
	done chan struct{}
	err  error // from Wait, once done is closed
}

// Start runs bin with args, its stdout and stderr going to out (nil
// discards them).
func Start(name string, out io.Writer, bin string, args ...string) (*Proc, error) {
	p := &Proc{Name: name, Cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.Cmd.Stdout, p.Cmd.Stderr = out, out
	if err := p.Cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { p.err = p.Cmd.Wait(); close(p.done) }()
	return p, nil
}

// Pid is the process's ID.
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is the process's exit error (nil for exit 0), once it has exited;
// it waits for that.
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

// Kill sends SIGKILL (a process that dies without warning) and waits for
// the exit.
func (p *Proc) Kill() {
	if !p.Exited() {
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// Stop sends SIGTERM and waits; a process still running after grace is
// killed, and the error says so.
func (p *Proc) Stop(grace time.Duration) error {
	if p.Exited() {
		return nil
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		p.Kill()
		return fmt.Errorf("%s (pid %d) did not stop on SIGTERM within %s; killed it", p.Name, p.Pid(), grace)
	}
}
