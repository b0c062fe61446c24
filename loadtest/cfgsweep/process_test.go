//go:build unix

package cfgsweep

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Stop ends the whole process group: a child that ignores SIGTERM (a
// vLLM worker stuck in a CUDA call) is killed after the grace, and one
// the server leaves behind when it exits on its own goes with it.
func TestStopKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, script string
		stop         bool
	}{
		{"stopped", `trap "" TERM; sleep 1000 & echo $! > ` + dir + `/stopped; wait`, true},
		{"exits", `sleep 1000 & echo $! > ` + dir + `/exits; exit 7`, false},
	} {
		p, err := StartProcess([]string{"/bin/sh", "-c", c.script})
		if err != nil {
			t.Fatal(err)
		}
		pid := 0
		for pid == 0 { // the script writes it at once
			b, _ := os.ReadFile(dir + "/" + c.name)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			time.Sleep(10 * time.Millisecond)
		}
		if c.stop {
			p.Stop(100 * time.Millisecond)
		}
		<-p.Exited()
		// The killed child is reaped by init: wait until it is gone (a
		// bound against a hang, not a speed target).
		for end := time.Now().Add(time.Minute); syscall.Kill(pid, 0) == nil && !zombie(pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("%s: the child %d outlived its group's stop", c.name, pid)
			}
		}
		if c.name == "exits" && p.Status() != "exit status 7" {
			t.Errorf("%s: status %q", c.name, p.Status())
		}
	}
}

// zombie: pid has exited and waits for its parent to reap it.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // gone, or no /proc: Kill says
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}
