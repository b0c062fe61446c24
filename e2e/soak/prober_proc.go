package main

import (
	"os"
	"os/exec"
)

// proberProcess is the llm-prober under test.
type proberProcess struct {
	cmd    *exec.Cmd
	exited chan error
	base   string // http://host:port
}

// startProber runs the binary on a free loopback port with cfgFile,
// logging to logFile. Stop it with stop (SIGTERM) or kill.
func startProber(bin, cfgFile string, logFile *os.File) (*proberProcess, error) {
	listen, err := closedPort()
	if err != nil {
		return nil, err
	}
	p := &proberProcess{exited: make(chan error, 1), base: "http://" + listen,
		cmd: exec.Command(bin, "--config.file="+cfgFile, "--web.listen-address="+listen)}
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.exited <- p.cmd.Wait() }()
	return p, nil
}

// kill ends the prober by PID if it still runs (for deferred cleanup).
func (p *proberProcess) kill() {
	select {
	case err := <-p.exited:
		p.exited <- err // keep it for whoever waits next
	default:
		_ = p.cmd.Process.Kill()
	}
}
