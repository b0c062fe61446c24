package loadtest

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// waker sleeps the last stretch before a planned send, on time whether the
// process is idle or busy. Go's timers wake up to 1 ms late when the
// process is idle: the netpoller then waits in whole milliseconds, and
// that alone is the whole send-lag budget. A timerfd wakes the idle
// netpoller on time, but is late when the process is busy: the netpoller
// is not consulted while run queues are full, for up to 10 ms. Go's timers
// are checked at every goroutine switch, so they are on time then. The
// sleeper therefore waits for whichever of the two fires first.
// Timerfds are reused: at 1,000 req/s only a few sleeps overlap.
type waker struct {
	mu     sync.Mutex
	free   []*os.File
	closed bool
}

// maxFreeTimerfds bounds the timerfds kept for reuse.
const maxFreeTimerfds = 64

func newWaker() *waker { return &waker{} }

// fire returns a channel that receives when a timerfd armed now for d
// expires, or nil (never) if no timerfd can be had. The read parks in the
// netpoller; the fd goes back for reuse once it has expired.
func (w *waker) fire(d time.Duration) <-chan struct{} {
	f := w.get()
	if f == nil {
		return nil
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
		return nil
	}
	ch := make(chan struct{}, 1)
	go func() {
		var buf [8]byte
		if _, err := f.Read(buf[:]); err != nil {
			_ = f.Close()
		} else {
			w.put(f)
		}
		ch <- struct{}{}
	}()
	return ch
}

func (w *waker) get() *os.File {
	w.mu.Lock()
	if n := len(w.free); n > 0 {
		f := w.free[n-1]
		w.free = w.free[:n-1]
		w.mu.Unlock()
		return f
	}
	w.mu.Unlock()
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	// A non-blocking fd makes os.NewFile register it with the netpoller.
	return os.NewFile(uintptr(fd), "timerfd")
}

func (w *waker) put(f *os.File) {
	w.mu.Lock()
	keep := !w.closed && len(w.free) < maxFreeTimerfds
	if keep {
		w.free = append(w.free, f)
	}
	w.mu.Unlock()
	if !keep {
		_ = f.Close()
	}
}

// close releases the timerfds kept for reuse; those still armed are
// closed when they expire.
func (w *waker) close() {
	w.mu.Lock()
	free := w.free
	w.free, w.closed = nil, true
	w.mu.Unlock()
	for _, f := range free {
		_ = f.Close()
	}
}
