package config

import (
	"net/url"
	"slices"

	"github.com/prometheus/common/config"
)

// TargetByName returns the target called name, or nil.
func (c *Config) TargetByName(name string) *Target {
	for _, t := range c.Targets {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// LabelKeys is the sorted union of the user label names of all targets:
// the extra label names of llm_prober_target_info.
func (c *Config) LabelKeys() []string {
	var keys []string
	for _, t := range c.Targets {
		for k := range t.Labels {
			if !slices.Contains(keys, string(k)) {
				keys = append(keys, string(k))
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// RedactedURL is the URL without userinfo, query or fragment, which may hold
// credentials (API keys in ?key=...). It is safe for labels and logs.
func (t *Target) RedactedURL() string {
	u, err := url.Parse(t.URL)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// ServerMetricsHTTPClientConfig is the client config for scraping the
// target's /metrics: the server_metrics override if set, else the target's.
func (t *Target) ServerMetricsHTTPClientConfig() *config.HTTPClientConfig {
	if t.ServerMetrics.HTTPClientConfig != nil {
		return t.ServerMetrics.HTTPClientConfig
	}
	return &t.HTTPClientConfig
}
