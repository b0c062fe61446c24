package e2ekit

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestStopAndKill(t *testing.T) {
	p, err := Start("sleep", nil, "sleep", "30")
	if err != nil {
		t.Skip(err)
	}
	if p.Exited() {
		t.Fatal("exited at once")
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if !p.Exited() || p.Err() == nil {
		t.Fatalf("after SIGTERM: exited %v, err %v", p.Exited(), p.Err())
	}
	q, err := Start("sleep", nil, "sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	q.Kill()
	if !q.Exited() || !strings.Contains(q.Err().Error(), "killed") {
		t.Fatalf("after SIGKILL: exited %v, err %v", q.Exited(), q.Err())
	}
}

func TestWaitHTTPProcessGone(t *testing.T) {
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start("true", nil, "true")
	if err != nil {
		t.Skip(err)
	}
	<-p.Done()
	if err := WaitHTTP(p, "http://"+addr, 10*time.Second); !errors.Is(err, ErrExited) {
		t.Errorf("process gone: %v, want ErrExited", err)
	}
}
