package config

import (
	"crypto/sha256"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// SafeConfig holds the running configuration and swaps it on reload. A
// failed reload keeps the previous configuration running.
type SafeConfig struct {
	cur atomic.Pointer[Config]

	mu     sync.Mutex // serialises Reload
	sum    [sha256.Size]byte
	loaded bool

	success     prometheus.Gauge
	successTime prometheus.Gauge
	now         func() time.Time
}

// NewSafeConfig returns an empty SafeConfig whose reload metrics are
// registered with reg (unless reg is nil).
func NewSafeConfig(reg prometheus.Registerer) *SafeConfig {
	f := promauto.With(reg)
	return &SafeConfig{
		success: f.NewGauge(prometheus.GaugeOpts{
			Name: "llm_prober_config_last_reload_successful",
			Help: "Whether the last configuration reload attempt was successful.",
		}),
		successTime: f.NewGauge(prometheus.GaugeOpts{
			Name: "llm_prober_config_last_reload_success_timestamp_seconds",
			Help: "Timestamp of the last successful configuration reload.",
		}),
		now: time.Now,
	}
}

// Get returns the current configuration (nil before the first successful
// Reload). Callers must not modify it.
func (s *SafeConfig) Get() *Config {
	return s.cur.Load()
}

// Reload loads path. When the file's content is the same as at the last
// successful load it does nothing and returns changed=false. On error the
// previous configuration stays in place.
func (s *SafeConfig) Reload(path string) (changed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := os.ReadFile(path)
	if err != nil {
		s.success.Set(0)
		return false, err
	}
	sum := sha256.Sum256(data)
	if s.loaded && sum == s.sum {
		// What runs is what the file says, even if an attempt in between failed.
		s.success.Set(1)
		return false, nil
	}
	cfg, err := Load(data, path)
	if err != nil {
		s.success.Set(0)
		return false, err
	}
	s.cur.Store(cfg)
	s.sum, s.loaded = sum, true
	s.success.Set(1)
	s.successTime.Set(float64(s.now().UnixNano()) / 1e9)
	return true, nil
}
