package collector

import (
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// Option configures a Manager.
type Option func(*Manager)

// MaxConcurrentScrapes caps scrapes in flight across all targets
// (DefaultMaxConcurrentScrapes if n < 1).
func MaxConcurrentScrapes(n int) Option {
	return func(m *Manager) {
		if n >= 1 {
			m.slots = make(chan struct{}, n)
		}
	}
}

// KeepAlive is how long a scrape's connection stays open for the next
// scrape of its target (config.DefaultKeepAliveTimeout if d <= 0), as
// global.keep_alive_timeout does for probes.
func KeepAlive(d time.Duration) Option {
	return func(m *Manager) {
		if d > 0 {
			m.keepAlive = d
		}
	}
}

func defaultOptions(m *Manager) {
	m.slots = make(chan struct{}, DefaultMaxConcurrentScrapes)
	m.keepAlive = config.DefaultKeepAliveTimeout
}
