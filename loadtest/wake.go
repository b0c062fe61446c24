package loadtest

import (
	"runtime"
	"time"
)

// spinBelow is the sleep short enough to wait for by yielding instead:
// either timer would wake later than that.
const spinBelow = 50 * time.Microsecond

// sleep returns after d.
func (w *waker) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	if d < spinBelow {
		for end := time.Now().Add(d); time.Now().Before(end); {
			runtime.Gosched()
		}
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w.fire(d):
	}
}
