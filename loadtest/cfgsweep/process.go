//go:build unix

package cfgsweep

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// pipeGrace is how long Wait waits for the log pipe after the server's
// own process exits: a child that keeps it open (vLLM's engine process)
// is killed with the group right after.
const pipeGrace = 2 * time.Second

// Process is a server started by bench in a process group of its own, so
// that stopping it stops whatever it started (vLLM's engine and workers).
// On Linux it is also killed when bench dies, even by SIGKILL (its
// parent-death signal); its own children then go only if they watch
// their parent, as vLLM's engine processes do.
type Process struct {
	cmd  *exec.Cmd
	log  *ring
	done chan struct{}
	err  error // Wait's, once done is closed
	// file, if any, has the whole output (to its cap); fileErr is its
	// first write or close error, once done is closed.
	file    *logFile
	fileErr error
}

// LogFileErr is the log file's first error, once the process is reaped.
func (p *Process) LogFileErr() error {
	select {
	case <-p.done:
		return p.fileErr
	default:
		return nil
	}
}

// StartProcess starts argv with its output kept in a bounded ring.
func StartProcess(argv []string) (*Process, error) { return startProcess(argv, nil) }

// startProcess is StartProcess that also copies the output to file, if
// not nil, closed once the server is reaped.
func startProcess(argv []string, file *logFile) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	p := &Process{log: &ring{}, done: make(chan struct{}), file: file}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if file != nil {
		w := io.MultiWriter(p.log, file) // neither returns an error
		cmd.Stdout, cmd.Stderr = w, w
	}
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = pipeGrace
	p.cmd = cmd
	started := make(chan error, 1)
	// Linux's parent-death signal (sysProcAttr) fires when the thread
	// that started the child exits, not the process: the start and the
	// wait share one goroutine locked to its thread, which lives as long
	// as the server (go.dev/issue/27505).
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine, after the server
		if err := cmd.Start(); err != nil {
			if file != nil {
				_ = file.Close()
			}
			started <- err
			return
		}
		started <- nil
		pgid := cmd.Process.Pid
		p.err = cmd.Wait()
		// Whatever the leader left running goes with it.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if file != nil {
			p.fileErr = file.Close()
		}
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// Exited is closed once the server's process has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.done }

// Status is how the process ended ("exit status 1", "signal: killed");
// "" while it runs.
func (p *Process) Status() string {
	select {
	case <-p.done:
	default:
		return ""
	}
	if p.cmd.ProcessState != nil {
		return p.cmd.ProcessState.String()
	}
	if p.err != nil {
		return p.err.Error()
	}
	return "exited"
}

// Tail is the end of the server's output (unescaped).
func (p *Process) Tail() string { return p.log.Tail() }

// Stop sends the group SIGTERM, then SIGKILL after grace, and waits until
// the server is reaped.
func (p *Process) Stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
}

// runCommand runs an apply command to its end (killed with its group at
// the deadline or when ctx ends), returning its error and log tail.
func runCommand(ctx context.Context, argv []string, deadline time.Duration) (string, error) {
	p, err := StartProcess(argv)
	if err != nil {
		return "", err
	}
	t := time.NewTimer(deadline)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.Stop(5 * time.Second)
		return p.Tail(), errors.New("did not finish within " + deadline.String())
	case <-ctx.Done():
		p.Stop(5 * time.Second)
		return p.Tail(), ctx.Err()
	}
	if !p.cmd.ProcessState.Success() {
		return p.Tail(), errors.New(p.Status())
	}
	return p.Tail(), nil
}
