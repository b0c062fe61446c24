package testutil

import (
	"slices"
	"time"
)

// SchedLag measures how late this process's goroutines get a CPU while a
// timing test runs: a goroutine sleeps 1 ms again and again and records
// how much later than asked it woke. A timing test's reading can be late
// by as much even where the code is exact: with kernel receive times,
// segments that queued while the reader waited for a CPU are read
// together and carry the last one's stamp. So a bound a test asserts
// holds on top of what the machine gives, and the test says what that was.
type SchedLag struct {
	stop chan struct{}
	done chan []time.Duration
}

// StartSchedLag starts measuring; call Stop when the timed part ends.
func StartSchedLag() *SchedLag {
	s := &SchedLag{stop: make(chan struct{}), done: make(chan []time.Duration, 1)}
	go func() {
		var lags []time.Duration
		for {
			select {
			case <-s.stop:
				s.done <- lags
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(time.Millisecond)
			lags = append(lags, time.Since(t0)-time.Millisecond)
		}
	}()
	return s
}

// Stop ends the measurement and returns the largest lateness seen, and
// its 99th percentile.
func (s *SchedLag) Stop() (worst, p99 time.Duration) {
	close(s.stop)
	lags := <-s.done
	if len(lags) == 0 {
		return 0, 0
	}
	slices.Sort(lags)
	return lags[len(lags)-1], lags[min(len(lags)*99/100, len(lags)-1)]
}
