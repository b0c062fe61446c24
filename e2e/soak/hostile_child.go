package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// serverProcess is the child process serving the hostile targets.
type serverProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan error
	info   serverInfo
	once   sync.Once
	err    error
}

// startServers re-runs this binary with --hostile-serve and reads the
// addresses it listens on.
func startServers(logFile *os.File) (*serverProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p := &serverProcess{cmd: exec.Command(self, "--hostile-serve"), exited: make(chan error, 1)}
	p.cmd.Stderr = logFile
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &p.info)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	if err != nil {
		_ = p.stop() // the start error says more
		return nil, fmt.Errorf("hostile servers did not start: %v", err)
	}
	return p, nil
}

func (p *serverProcess) setHostile(on bool) error {
	resp, err := http.Post(fmt.Sprintf("http://%s/mode?hostile=%t", p.info.Control, on), "", nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("hostile servers: mode: HTTP %d", resp.StatusCode)
	}
	return nil
}

func (p *serverProcess) stats() (serverStats, error) {
	var st serverStats
	resp, err := http.Get("http://" + p.info.Control + "/stats")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// stop ends the child by its PID: SIGTERM, then SIGKILL after 5s. It may
// be called more than once.
func (p *serverProcess) stop() error {
	p.once.Do(func() { p.err = p.kill() })
	return p.err
}

func (p *serverProcess) kill() error {
	_ = p.stdin.Close()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.exited:
		return err
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited //nolint:errcheck // killed: its exit status says nothing
		return errors.New("hostile servers did not exit within 5s of SIGTERM")
	}
}
