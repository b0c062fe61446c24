package testutil

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Overloaded says why this machine cannot give a test's reader a CPU as
// soon as its data arrives, or "" if it can: the 1-minute load average is
// above twice the CPUs. Timing bounds hold only then: a reader that waited
// for a CPU reads the segments that queued meanwhile together, under the
// last one's kernel stamp (and a Go process polls the network late when
// all its Ps are busy), so at load 14 on 2 cores readings 200 ms late are
// the machine's, not the code's.
func Overloaded() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil || load <= 2*float64(runtime.NumCPU()) {
		return ""
	}
	return fmt.Sprintf("load average %.1f on %d CPUs", load, runtime.NumCPU())
}

// SkipIfOverloaded skips a test whose every assertion is a timing bound.
func SkipIfOverloaded(t testing.TB) {
	t.Helper()
	if why := Overloaded(); why != "" {
		t.Skipf("timing bounds not checked: %s (the machine, not the code, decides them)", why)
	}
}
