package main

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

// scrapeLog records the server-metrics scrapes the targets receive, on the
// targets' side: when each started and how many were in flight at once.
type scrapeLog struct {
	body  []byte
	delay time.Duration // how long a target takes to render its /metrics

	mu       sync.Mutex
	t0       time.Time
	inFlight int
	peak     int
	starts   []time.Duration       // since t0
	first    map[int]time.Duration // per target (listener), since t0
}

func newScrapeLog(file string, delay time.Duration) (*scrapeLog, error) {
	body, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return &scrapeLog{body: body, delay: delay}, nil
}

// reset starts a new size's record; t0 is when the prober was started.
func (l *scrapeLog) reset(t0 time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t0, l.inFlight, l.peak, l.starts, l.first = t0, 0, 0, nil, map[int]time.Duration{}
}

// handler serves /metrics of target i, like a server that takes delay to
// render it.
func (l *scrapeLog) handler(i int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		at := time.Since(l.t0)
		l.starts = append(l.starts, at)
		if _, ok := l.first[i]; !ok && l.first != nil {
			l.first[i] = at
		}
		l.inFlight++
		l.peak = max(l.peak, l.inFlight)
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			l.inFlight--
			l.mu.Unlock()
		}()
		time.Sleep(l.delay)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(l.body)
	}
}

// report prints the scrape count, the peak in flight, when targets were
// first scraped after the prober started, and the busiest second: in step,
// it holds every target; spread over the interval, about n / interval.
func (l *scrapeLog) report(n int, interval time.Duration, cpuSinceStart float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	firsts := make([]time.Duration, 0, len(l.first))
	for _, d := range l.first {
		firsts = append(firsts, d)
	}
	slices.Sort(firsts)
	starts := slices.Clone(l.starts)
	slices.Sort(starts)
	busiest, j := 0, 0
	for i := range starts {
		for starts[i]-starts[j] >= time.Second {
			j++
		}
		busiest = max(busiest, i-j+1)
	}
	pct := func(q float64) string {
		if len(firsts) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1fs", firsts[int(q*float64(len(firsts)-1))].Seconds())
	}
	fmt.Printf("  server metrics: %d scrapes of %d/%d targets, peak %d in flight, first scrape after start p0/p50/p100 %s/%s/%s, busiest 1 s %d (uniform ≈ %.0f); CPU since start %.3f cores\n",
		len(starts), len(firsts), n, l.peak, pct(0), pct(0.5), pct(1), busiest, float64(n)/interval.Seconds(), cpuSinceStart)
}
