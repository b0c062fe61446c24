package config

import (
	"reflect"

	"github.com/prometheus/common/config"
)

// Equal reports whether two targets have the same effective configuration
// (Line aside), so a reload can keep an unchanged target's scheduler and
// counters. It does not look into the modules the target names: compare
// those with Module.Equal.
func (t *Target) Equal(o *Target) bool {
	if t == nil || o == nil {
		return t == o
	}
	return reflect.DeepEqual(t.comparable(), o.comparable())
}

// Equal reports whether two modules have the same effective configuration.
func (m *Module) Equal(o *Module) bool {
	if m == nil || o == nil {
		return m == o
	}
	return reflect.DeepEqual(m.comparable(), o.comparable())
}

// comparable is a copy without what DeepEqual must not see: the source
// line, compiled regexps and the proxy function prometheus/common caches;
// and without capacity, which only the server-metrics collector reads (it
// compares its own spec): a new knee must not restart a target's probes.
func (t *Target) comparable() Target {
	c := *t
	c.Line = 0
	c.Capacity = nil
	c.HTTPClientConfig = ComparableHTTP(t.HTTPClientConfig)
	if hc := t.ServerMetrics.HTTPClientConfig; hc != nil {
		h := ComparableHTTP(*hc)
		c.ServerMetrics.HTTPClientConfig = &h
	}
	c.ServerMetrics.Passthrough = make([]*Regexp, len(t.ServerMetrics.Passthrough))
	for i, r := range t.ServerMetrics.Passthrough {
		c.ServerMetrics.Passthrough[i] = sourceOnly(r)
	}
	return c
}

func (m *Module) comparable() Module {
	c := *m
	c.Line = 0
	c.Validators.OutputRegex = sourceOnly(m.Validators.OutputRegex)
	return c
}

func sourceOnly(r *Regexp) *Regexp {
	if r == nil {
		return nil
	}
	return &Regexp{Source: r.Source}
}

// ComparableHTTP returns h without the proxy func that ProxyConfig caches
// once used: funcs never compare equal, so without this every reload would
// look like a change.
func ComparableHTTP(h config.HTTPClientConfig) config.HTTPClientConfig {
	h.ProxyConfig = comparableProxy(h.ProxyConfig)
	if h.OAuth2 != nil {
		o := *h.OAuth2
		o.ProxyConfig = comparableProxy(o.ProxyConfig)
		h.OAuth2 = &o
	}
	return h
}

// comparableProxy copies only the exported fields, dropping the cached func.
func comparableProxy(p config.ProxyConfig) config.ProxyConfig {
	return config.ProxyConfig{
		ProxyURL:             p.ProxyURL,
		NoProxy:              p.NoProxy,
		ProxyFromEnvironment: p.ProxyFromEnvironment,
		ProxyConnectHeader:   p.ProxyConnectHeader,
	}
}
