//go:build !linux

package loadtest

import "time"

// waker is Go's timer where there is no timerfd.
type waker struct{}

func newWaker() *waker { return &waker{} }

func (*waker) sleep(d time.Duration) { time.Sleep(d) }

func (*waker) close() {}
