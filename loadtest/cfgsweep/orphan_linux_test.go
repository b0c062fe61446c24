package cfgsweep

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A bench killed outright (SIGKILL: no handler runs) takes its started
// server with it: the kernel's parent-death signal, from the thread that
// started it. Before, the server outlived bench, holding its port and
// GPUs.
func TestServerDiesWithKilledBench(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	bench := exec.Command(exe, "-test.run=^$")
	bench.Env = append(os.Environ(), "CFGSWEEP_HELPER=bench", "PIDFILE="+pidFile)
	if err := bench.Start(); err != nil {
		t.Fatal(err)
	}
	pid := 0
	for end := time.Now().Add(time.Minute); pid == 0; time.Sleep(10 * time.Millisecond) { // a bound, not a speed target
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if pid == 0 && time.Now().After(end) {
			_ = bench.Process.Kill()
			t.Fatal("the helper bench started no server within a minute")
		}
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // the server this test started, if it outlived the check
	if err := bench.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = bench.Wait()
	for end := time.Now().Add(time.Minute); syscall.Kill(pid, 0) == nil && !zombie(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the server %d outlived the SIGKILLed bench by a minute", pid)
		}
	}
}
