package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// tick is one per-second look at the prober from outside.
type tick struct {
	at         time.Time
	rss        float64 // bytes, VmRSS from /proc
	fds        float64 // entries in /proc/PID/fd
	goroutines float64 // go_goroutines from /metrics
	cpu        float64 // seconds of CPU the prober used so far, from /proc
	psi        float64 // seconds some task on the machine waited for a CPU, so far (-1: no PSI)
	ready      time.Duration
	readyErr   string        // non-200 or transport error
	stall      time.Duration // the harness's own worst oversleep this second
}

// watch samples the prober every second, and times /-/ready more often
// while a reload runs (hammer).
type watch struct {
	base   string
	pid    int
	client *http.Client // its own keep-alive connection: no connect in the timing
	mu     sync.Mutex
	ticks  []tick
	extra  []tick        // /-/ready timings taken during reloads
	stall  time.Duration // worst oversleep of the canary since the last tick
	stop   chan struct{}
	done   chan struct{}
}

func startWatch(base string, pid int) *watch {
	w := &watch{base: base, pid: pid, client: &http.Client{Timeout: 10 * time.Second},
		stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	go w.canary()
	return w
}

func (w *watch) loop() {
	defer close(w.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		k := tick{at: time.Now()}
		k.ready, k.readyErr = w.timeReady()
		k.rss = procRSS(w.pid)
		k.fds = countFDs(w.pid)
		k.goroutines = w.goroutines()
		k.cpu = procCPU(w.pid)
		k.psi = cpuPressure()
		w.mu.Lock()
		k.stall, w.stall = w.stall, 0
		w.ticks = append(w.ticks, k)
		w.mu.Unlock()
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
	}
}

// canary measures how late the harness itself wakes from a 5ms sleep: on
// a shared machine, a slow /-/ready in a second where the harness also
// stalled says more about the machine than about the prober.
func (w *watch) canary() {
	for {
		select {
		case <-w.stop:
			return
		default:
		}
		start := time.Now()
		time.Sleep(5 * time.Millisecond)
		late := time.Since(start) - 5*time.Millisecond
		w.mu.Lock()
		w.stall = max(w.stall, late)
		w.mu.Unlock()
	}
}

// stallAround is the harness's worst stall within a second of t.
func (w *watch) stallAround(t time.Time) time.Duration {
	var worst time.Duration
	for _, k := range w.between(t.Add(-time.Second), t.Add(2*time.Second)) {
		worst = max(worst, k.stall)
	}
	return worst
}

func (w *watch) close() {
	close(w.stop)
	<-w.done
}

// timeReady times one GET /-/ready, body included.
func (w *watch) timeReady() (time.Duration, string) {
	start := time.Now()
	resp, err := w.client.Get(w.base + "/-/ready")
	if err != nil {
		return time.Since(start), err.Error()
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return d, fmt.Sprintf("HTTP %d", resp.StatusCode)
	}
	return d, ""
}

// hammer times /-/ready every 5ms until stop is closed.
func (w *watch) hammer(stop <-chan struct{}) {
	c := &http.Client{Timeout: 10 * time.Second}
	for {
		select {
		case <-stop:
			return
		default:
		}
		k := tick{at: time.Now()}
		start := time.Now()
		resp, err := c.Get(w.base + "/-/ready")
		if err != nil {
			k.readyErr = err.Error()
		} else {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				k.readyErr = fmt.Sprintf("HTTP %d", resp.StatusCode)
			}
		}
		k.ready = time.Since(start)
		w.mu.Lock()
		w.extra = append(w.extra, k)
		w.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
}

// between returns the per-second ticks in [from, to).
func (w *watch) between(from, to time.Time) []tick {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []tick
	for _, k := range w.ticks {
		if !k.at.Before(from) && k.at.Before(to) {
			out = append(out, k)
		}
	}
	return out
}

func (w *watch) readyTimings() (ticks, extra []tick) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]tick(nil), w.ticks...), append([]tick(nil), w.extra...)
}

// goroutines reads go_goroutines from the prober's /metrics, or -1.
func (w *watch) goroutines() float64 {
	resp, err := w.client.Get(w.base + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	v := -1.0
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			v, _ = strconv.ParseFloat(rest, 64)
		}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return v
}

// procCPU is the user and system CPU time of pid in seconds, or -1.
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The fields after the command name, which is in parentheses.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return -1
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ is 100 on Linux
}

// cpuPressure is the machine's cumulative CPU "some" stall time in
// seconds (/proc/pressure/cpu), or -1: how busy the shared machine was.
func cpuPressure() float64 {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return -1
	}
	line, _, _ := strings.Cut(string(b), "\n")
	_, total, ok := strings.Cut(line, "total=")
	if !strings.HasPrefix(line, "some") || !ok {
		return -1
	}
	us, err := strconv.ParseFloat(strings.TrimSpace(total), 64)
	if err != nil {
		return -1
	}
	return us / 1e6
}

// pressure is the share of [from, to] in which some task on the machine
// waited for a CPU, or -1.
func (w *watch) pressure(from, to time.Time) float64 {
	ks := w.between(from, to)
	if len(ks) < 2 || ks[0].psi < 0 {
		return -1
	}
	a, b := ks[0], ks[len(ks)-1]
	return (b.psi - a.psi) / b.at.Sub(a.at).Seconds()
}

func countFDs(pid int) float64 {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return float64(len(ents))
}
