package config

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// SafeConfig holds the running configuration and swaps it on reload. A
// failed reload keeps the previous configuration running.
type SafeConfig struct {
	cur  atomic.Pointer[Config]
	file atomic.Pointer[Config] // as loaded, before derive
	// derive turns the file's config into the running one (discovered
	// targets added, the shard's kept); nil keeps it as loaded.
	derive func(*Config) *Config

	mu sync.Mutex // serialises Reload

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

// Reload loads path and, if it is valid, makes it the running
// configuration. It always reads and decodes the file, even when its bytes
// did not change: ${ENV} secrets may have, and what the caller applies
// from it (an HTTP client whose ca_file was missing) may need repair. On
// error the previous configuration stays in place.
func (s *SafeConfig) Reload(path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg, err := LoadFile(path)
	if err != nil {
		s.success.Set(0)
		return err
	}
	s.file.Store(cfg)
	s.cur.Store(s.derived(cfg))
	s.success.Set(1)
	s.successTime.Set(float64(s.now().UnixNano()) / 1e9)
	return nil
}

// SetDerive sets how the running config is made from the file's; call it
// before the first Reload.
func (s *SafeConfig) SetDerive(f func(*Config) *Config) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.derive = f
}

// File returns the config as loaded from the file (nil before the first
// successful Reload).
func (s *SafeConfig) File() *Config {
	return s.file.Load()
}

// Rederive remakes the running config from the file's, e.g. after
// discovery changed, and returns it (nil before the first Reload).
func (s *SafeConfig) Rederive() *Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.file.Load()
	if f == nil {
		return nil
	}
	cur := s.derived(f)
	s.cur.Store(cur)
	return cur
}

func (s *SafeConfig) derived(f *Config) *Config {
	if s.derive == nil {
		return f
	}
	return s.derive(f)
}

// WithTargets returns a shallow copy of c running targets instead of its
// own; modules and everything else are shared and must not be modified.
func (c *Config) WithTargets(targets []*Target) *Config {
	cp := *c
	cp.Targets = targets
	return &cp
}
