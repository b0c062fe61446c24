package collector

import (
	"context"
	"math/rand/v2"
	"time"
)

// DefaultMaxConcurrentScrapes caps server-metrics scrapes in flight across
// all targets. A healthy target answers in milliseconds, so 16 slots serve
// thousands of targets at a 30 s interval; the cap bounds the connections
// and parsing CPU of a burst (every scraper of a reload, hung targets each
// holding a slot up to their timeout) instead of letting it grow with the
// fleet.
const DefaultMaxConcurrentScrapes = 16

// randomPhase spreads first scrapes over the interval, so that targets
// added together (at start, or by a reload) do not scrape in step.
func randomPhase(interval time.Duration) time.Duration {
	if interval <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(interval)))
}

// acquire takes a scrape slot, or returns false if ctx ends first.
func acquire(ctx context.Context, slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}
