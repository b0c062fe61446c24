package e2ekit

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

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
	// A server that accepts and hangs must not hold the wait past timeout.
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if p != nil && p.Exited() {
			return fmt.Errorf("%s %w", p.Name, ErrExited)
		}
		resp, err := client.Get(u)
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
