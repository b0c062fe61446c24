// Package live is the part of the test scaffolding that programs share
// with tests: processes started and stopped by their PID, free loopback
// addresses, waiting for an HTTP endpoint, streamed chat load, and the
// probe and scrape configuration the end-to-end runs have in common. It
// returns errors and does not import package testing, so the alert drill
// (e2e/drill) and the harnesses under bench/cmd use it as they are;
// package testutil wraps it for tests (testutil.Start, testutil.WaitHTTP).
package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
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

// FreeAddr returns a 127.0.0.1 address whose port was free a moment ago.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// ErrExited is wrapped by WaitHTTP's error when the process exited before
// it answered.
var ErrExited = errors.New("exited early")

// WaitHTTP polls u until it answers 200 OK or timeout passes. p (nil when
// there is no process to watch) is the process serving u: if it exits
// first, the error wraps ErrExited.
func WaitHTTP(p *Proc, u string, timeout time.Duration) error {
	name := u
	if p != nil {
		name = p.Name + ": " + u
	}
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if p != nil && p.Exited() {
			return fmt.Errorf("%s %w", p.Name, ErrExited)
		}
		resp, err := http.Get(u)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s not ready after %s", name, timeout)
}

// LoadBody is a load generator's request: a streamed chat completion for
// mock-model of a prompt of words words, asking for maxTokens tokens
// whatever the model would rather do.
func LoadBody(words, maxTokens int) []byte {
	body, err := json.Marshal(map[string]any{
		"model":      "mock-model",
		"messages":   []map[string]string{{"role": "user", "content": strings.TrimSpace(strings.Repeat("load ", words))}},
		"max_tokens": maxTokens,
		"ignore_eos": true,
		"stream":     true,
	})
	if err != nil {
		panic(err) // a map of strings and numbers always marshals
	}
	return body
}

// Stream is one load client: it posts body to base's chat completions
// endpoint again and again until ctx is done, reading each streamed
// answer to its end. After a request that got no answer it waits backoff;
// answered, if not nil, is called with the status of every answer.
func Stream(ctx context.Context, client *http.Client, base string, body []byte, backoff time.Duration, answered func(status int)) {
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			time.Sleep(backoff)
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
		resp.Body.Close()
		if answered != nil {
			answered(resp.StatusCode)
		}
	}
}

// ChatModule is the probe module "chat" of the end-to-end runs' prober
// configurations (under modules:, without its slo:).
const ChatModule = `  chat:
    api: chat
    messages:
      - role: user
        content: "Count from one to twenty, in words."
    max_tokens: 16
    ignore_eos: true
`

// ProberScrapeJob is the Prometheus scrape job of llm-prober at
// {{PROBER}}, ingesting its native histograms and keeping the classic
// _bucket series the rules and dashboards use (under scrape_configs:).
const ProberScrapeJob = `  - job_name: llm-prober
    scrape_native_histograms: true
    always_scrape_classic_histograms: true
    static_configs:
      - targets: ["{{PROBER}}"]
`
