//go:build !linux

package loadtest

import "time"

// waker without timerfds, where the kernel has none: Go's timers alone,
// which wake up to ~1 ms late when the process is idle (see wake_linux.go).
type waker struct{}

func newWaker() *waker { return &waker{} }

// fire never fires: sleep waits for its Go timer.
func (w *waker) fire(time.Duration) <-chan struct{} { return nil }

func (w *waker) close() {}
