// Package promsource reads what a server actually served from the
// Prometheus that scrapes llm-prober: the re-exported request counter and
// prompt/generation length histograms of the targets a selector picks,
// over a window. `llm-prober plan` and `bench --workload-from-prometheus`
// share its flags and its client.
package promsource

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
)

// Flags are the command-line settings of a Prometheus source (registered
// by cmd/llm-prober's prometheus_flags.go; Config checks them).
type Flags struct {
	URL            string
	HTTPConfigFile string
	Selector       string
	Window         model.Duration
	End            string
	Timeout        time.Duration
	RateInterval   model.Duration
	// MaxResponseBytes caps each answer's body (0: DefaultMaxResponseBytes).
	MaxResponseBytes int64
}

// NewFlags returns the flags' defaults: a 7 d window; RateInterval is 0
// (not checked) unless a command that reads rates sets it (plan: 5m).
func NewFlags() *Flags { return &Flags{Window: model.Duration(7 * 24 * time.Hour)} }

// Config is a checked source configuration.
type Config struct {
	URL            *url.URL
	HTTPConfigFile string
	// Matchers is the selector's matcher list without braces (may be
	// empty): metric{Matchers}.
	Matchers     string
	Window       time.Duration
	End          time.Time // zero: now
	Timeout      time.Duration
	RateInterval time.Duration
	// MaxResponseBytes caps each answer's body (0: DefaultMaxResponseBytes).
	MaxResponseBytes int64
}

// Given reports whether --prometheus.url was given.
func (f *Flags) Given() bool { return f.URL != "" }

// Config checks the flags; its errors name the flag (a usage error).
func (f *Flags) Config() (*Config, error) {
	if f.URL == "" {
		return nil, fmt.Errorf("--prometheus.url is required: the Prometheus that scrapes llm-prober")
	}
	u, err := url.Parse(f.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--prometheus.url %q: want an http:// or https:// URL", f.URL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("--prometheus.url: credentials in the URL would be shown and logged; use basic_auth.password_file in --prometheus.http-config-file")
	}
	m, err := Matchers(f.Selector)
	if err != nil {
		return nil, err
	}
	c := &Config{URL: u, HTTPConfigFile: f.HTTPConfigFile, Matchers: m, Window: time.Duration(f.Window),
		Timeout: f.Timeout, RateInterval: time.Duration(f.RateInterval), MaxResponseBytes: f.MaxResponseBytes}
	switch {
	case c.Window <= 0:
		return nil, fmt.Errorf("--window must be positive")
	case c.Timeout <= 0:
		return nil, fmt.Errorf("--prometheus.timeout must be positive")
	case c.MaxResponseBytes < 0:
		return nil, fmt.Errorf("--prometheus.max-response-bytes must be positive")
	case f.RateInterval == 0: // bench: reads no rates
	case c.RateInterval < time.Second:
		return nil, fmt.Errorf("--rate-interval must be at least 1s")
	case c.RateInterval > c.Window:
		return nil, fmt.Errorf("--rate-interval %s is longer than --window %s", f.RateInterval, f.Window)
	}
	if f.End != "" {
		if c.End, err = parseTime(f.End); err != nil {
			return nil, fmt.Errorf("--window.end %q: %w", f.End, err)
		}
	}
	return c, nil
}

func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	var sec float64
	if _, err := fmt.Sscanf(s, "%g", &sec); err == nil && sec > 0 && !strings.ContainsAny(s, "-:") {
		return time.Unix(0, int64(sec*1e9)), nil
	}
	return time.Time{}, fmt.Errorf("want RFC 3339 (2026-11-20T00:00:00Z) or a Unix time")
}

// Matchers checks a selector with Prometheus's own parser and returns its
// matchers without braces. It must pick series by labels only: the
// metric name is the source's business.
func Matchers(sel string) (string, error) {
	s := strings.TrimSpace(sel)
	if s == "" || s == "{}" {
		return "", nil
	}
	if !strings.HasPrefix(s, "{") {
		return "", fmt.Errorf("--selector %q: want label matchers in braces, e.g. '{target=\"vllm-a\"}'", sel)
	}
	ms, err := parser.NewParser(parser.Options{}).ParseMetricSelector(s)
	if err != nil {
		return "", fmt.Errorf("--selector %q: %w", sel, err)
	}
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		if m.Name == model.MetricNameLabel {
			return "", fmt.Errorf("--selector %q: give label matchers only, not a metric name", sel)
		}
		parts = append(parts, m.String())
	}
	return strings.Join(parts, ","), nil
}
