package collector

import (
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

func defaultOptions(m *Manager) {
	m.slots = make(chan struct{}, DefaultMaxConcurrentScrapes)
	m.keepAlive = config.DefaultKeepAliveTimeout
}
