package config

import (
	"os"

	"github.com/llm-prober/llm-prober/config/otlpcfg"
)

// The OTLP sections live in config/otlpcfg; these names keep config's API.
type (
	// Tracing is the tracing section (otlpcfg.Tracing).
	Tracing = otlpcfg.Tracing
	// OTLPMetrics is the otlp_metrics section (otlpcfg.OTLPMetrics).
	OTLPMetrics = otlpcfg.OTLPMetrics
	// FromEnv is what OTEL_* gave a section (otlpcfg.FromEnv).
	FromEnv = otlpcfg.FromEnv
)

// Defaults and limits of the OTLP sections.
const (
	DefaultTracingTimeout      = otlpcfg.DefaultTracingTimeout
	DefaultOTLPMetricsInterval = otlpcfg.DefaultOTLPMetricsInterval
	DefaultOTLPMetricsTimeout  = otlpcfg.DefaultOTLPMetricsTimeout
	MinOTLPMetricsInterval     = otlpcfg.MinOTLPMetricsInterval
	MaxOTLPMetricsInterval     = otlpcfg.MaxOTLPMetricsInterval
)

// RedactURL hides the user info and every query value of a URL
// (otlpcfg.RedactURL).
func RedactURL(s string) string { return otlpcfg.RedactURL(s) }

// CheckOTLPMetrics validates an otlp_metrics section (otlpcfg.CheckOTLPMetrics).
func CheckOTLPMetrics(m *OTLPMetrics) (field, msg string) { return otlpcfg.CheckOTLPMetrics(m) }

// otlp fills both sections from the OTEL_* environment where they leave
// a setting unset (the file wins, as the OpenTelemetry specification
// orders them), then checks them, naming the fields at fault.
func (c *checker) otlp(cfg *Config) {
	if err := cfg.Tracing.ApplyEnv(os.Getenv); err != nil {
		c.errf("tracing", "%s", err)
	}
	if err := cfg.OTLPMetrics.ApplyEnv(os.Getenv); err != nil {
		c.errf("otlp_metrics", "%s", err)
	}
	if field, msg := otlpcfg.CheckTracing(&cfg.Tracing); field != "" {
		c.errf("tracing."+field, "%s", msg)
	}
	if field, msg := otlpcfg.CheckOTLPMetrics(&cfg.OTLPMetrics); field != "" {
		c.errf("otlp_metrics."+field, "%s", msg)
	}
}
