package main

import (
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// --demo alone serves on loopback, as the README says, not on every
// interface. Port 9775 may be taken on a shared machine: the address the
// prober tries to listen on is what is checked, not that it got it.
func TestDemoListensOnLoopback(t *testing.T) {
	p := testutil.Start(t, "llm-prober", binary, "--demo")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.Log(), `msg="Listening on"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no 'Listening on' line:\n%s", p.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(p.Log(), "address="+demoListenAddress) {
		t.Errorf("--demo does not listen on %s:\n%s", demoListenAddress, p.Log())
	}
}
