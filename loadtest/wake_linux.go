package loadtest

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// waker sleeps the last stretch before a planned send on a timerfd.
// Go's timers wake up to 1 ms late on Linux (the netpoller waits in whole
// milliseconds), which alone is the whole send-lag budget; a timerfd
// becomes readable on time and its read parks the goroutine in the same
// netpoller, which the event wakes at once. Timerfds are reused: a run at
// 1,000 req/s has only a few requests in their last stretch at a time.
type waker struct{ free chan *os.File }

func newWaker() *waker { return &waker{free: make(chan *os.File, 64)} }

// sleep returns after d, a few microseconds late at most on an idle CPU.
// It falls back to time.Sleep where a timerfd cannot be had.
func (w *waker) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	f := w.get()
	if f == nil {
		time.Sleep(d)
		return
	}
	// Not f.Fd(): it would switch the fd to blocking mode.
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	var serr error
	rc, err := f.SyscallConn()
	if err == nil {
		err = rc.Control(func(fd uintptr) { serr = unix.TimerfdSettime(int(fd), 0, &spec, nil) })
	}
	if err != nil || serr != nil {
		_ = f.Close()
		time.Sleep(d)
		return
	}
	var buf [8]byte
	if _, err := f.Read(buf[:]); err != nil {
		_ = f.Close()
		return
	}
	w.put(f)
}

func (w *waker) get() *os.File {
	select {
	case f := <-w.free:
		return f
	default:
	}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	// A non-blocking fd makes os.NewFile register it with the netpoller.
	return os.NewFile(uintptr(fd), "timerfd")
}

func (w *waker) put(f *os.File) {
	select {
	case w.free <- f:
	default:
		_ = f.Close()
	}
}

// close releases the timerfds kept for reuse.
func (w *waker) close() {
	for {
		select {
		case f := <-w.free:
			_ = f.Close()
		default:
			return
		}
	}
}
