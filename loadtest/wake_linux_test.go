package loadtest

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// openFDs counts this process's open file descriptors (Linux), or -1.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	// Only timerfds: the other fds of the process (an earlier test's
	// connections still closing) come and go on their own.
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.Contains(l, "timerfd") {
			n++
		}
	}
	return n
}

// fdsBackTo waits until this process has at most n open timerfds (a timerfd
// whose timer won the race is released when it expires), and reports the
// count.
func fdsBackTo(t *testing.T, n int) int {
	t.Helper()
	got := openFDs(t)
	for deadline := time.Now().Add(5 * time.Second); got > n && time.Now().Before(deadline); got = openFDs(t) {
		time.Sleep(time.Millisecond)
	}
	return got
}

func TestWakerSleepsAtLeastAndReusesFDs(t *testing.T) {
	w := newWaker()
	before := openFDs(t)
	for _, d := range []time.Duration{-time.Millisecond, 0, time.Nanosecond, 300 * time.Microsecond, 2 * time.Millisecond} {
		for range 20 {
			start := time.Now()
			w.sleep(d)
			if got := time.Since(start); got < d {
				t.Fatalf("sleep(%v) returned after %v", d, got)
			}
		}
	}
	if runtime.GOOS == "linux" {
		// Sequential sleeps reuse a few timerfds, not one each.
		if n := openFDs(t); n > before+8 {
			t.Errorf("open fds %d → %d after 100 sleeps: timerfds not reused", before, n)
		}
	}
	w.close()
	if n := fdsBackTo(t, before); before >= 0 && n > before {
		t.Errorf("open fds %d → %d after close", before, n)
	}
}

func TestWakerConcurrentSleepers(t *testing.T) {
	w := newWaker()
	before := openFDs(t)
	done := make(chan time.Duration)
	const n = 200 // more than the free list keeps
	for range n {
		go func() {
			start := time.Now()
			w.sleep(time.Millisecond)
			done <- time.Since(start)
		}()
	}
	for range n {
		if got := <-done; got < time.Millisecond {
			t.Fatalf("a concurrent sleep returned after %v", got)
		}
	}
	if runtime.GOOS == "linux" {
		if got := fdsBackTo(t, before+maxFreeTimerfds); got > before+maxFreeTimerfds {
			t.Errorf("open fds %d → %d: more kept than the free list holds (%d)", before, got, maxFreeTimerfds)
		}
	}
	w.close()
	if got := fdsBackTo(t, before); before >= 0 && got > before {
		t.Errorf("open fds %d → %d after close", before, got)
	}
}

// BenchmarkWakeLateness measures how late sleeps of 0.1 to 2 ms return
// with the waker and with time.Sleep, in an otherwise idle process and in
// one whose run queues are never empty (docs/performance.md, section 5).
func BenchmarkWakeLateness(b *testing.B) {
	w := newWaker()
	defer w.close()
	for _, busy := range []bool{false, true} {
		for _, c := range []struct {
			name  string
			sleep func(time.Duration)
		}{{"waker", w.sleep}, {"time.Sleep", time.Sleep}} {
			name := c.name
			if busy {
				name += "/busy"
			}
			b.Run(name, func(b *testing.B) {
				if busy {
					stop := keepBusy(2 * runtime.GOMAXPROCS(0))
					defer stop()
				}
				late := make([]float64, 0, b.N)
				for i := 0; b.Loop(); i++ {
					d := time.Duration(1+i%20) * 100 * time.Microsecond
					start := time.Now()
					c.sleep(d)
					late = append(late, float64(time.Since(start)-d)/1e3)
				}
				slices.Sort(late)
				b.ReportMetric(late[len(late)/2], "late-µs-p50")
				b.ReportMetric(late[len(late)*99/100], "late-µs-p99")
			})
		}
	}
}

// spins counts keepBusy's work, so that its loop is not empty.
var spins atomic.Int64

// keepBusy runs n goroutines that yield to each other in short slices, as
// stream readers do under load, until stop is called.
func keepBusy(n int) (stop func()) {
	done := make(chan struct{})
	for range n {
		go func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				// 20 µs of work, then a switch.
				slice := time.Now().Add(20 * time.Microsecond)
				for time.Now().Before(slice) {
					spins.Add(1)
				}
				runtime.Gosched()
			}
		}()
	}
	return func() { close(done) }
}
