package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// FIFOSwap calls read(p) n times while another goroutine keeps replacing
// p, by rename, with a hard link to the regular file file and then to the
// FIFO fifo (both in p's folder), so that a FIFO can appear between a
// reader's stat and its open. It returns how many reads met the FIFO. A
// read stuck on the FIFO for a minute (a hang detector, not a speed limit)
// is freed by a watchdog that opens the FIFO for writing, and the test
// fails with "a read hung on the FIFO", instead of the suite hanging.
func FIFOSwap(t testing.TB, p, file, fifo string, n int, read func(path string) error) (fifos int) {
	t.Helper()
	stop, flipped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(flipped)
		tmp := filepath.Join(filepath.Dir(p), ".fifoswap.tmp")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			src := file
			if i%2 == 1 {
				src = fifo
			}
			_ = os.Link(src, tmp)
			_ = os.Rename(tmp, p)
		}
	}()
	done, watched := make(chan struct{}), make(chan bool)
	go func() {
		select {
		case <-done:
			watched <- false
		case <-time.After(time.Minute):
			// Keep freeing stuck opens until the reads end: one
			// writer frees every reader blocked at that moment.
			for {
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					_ = w.Close()
				}
				select {
				case <-done:
					watched <- true
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}
	}()
	for range n {
		if err := read(p); err != nil && strings.Contains(err.Error(), "not a regular file") {
			fifos++
		}
	}
	close(done)
	close(stop)
	<-flipped
	if <-watched {
		t.Error("a read hung on the FIFO")
	}
	t.Logf("%d of %d reads met the FIFO", fifos, n)
	return fifos
}
