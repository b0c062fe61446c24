package config

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/capacity/kneefile"
)

// checker applies defaults and validates a decoded config. Defaults and
// checks live together because several checks depend on whether a field
// was set in the file or inherited (lines has an entry only if it was set).
// Every check's error is kept in errs; a check returns it too, so that the
// checks that depend on it can be skipped.
type checker struct {
	file  string
	lines map[string]int
	errs  []*Error
	knees kneefile.Cache // the knee files this load read, by path
}

// Checks record every error in c.errs and those that return one also
// return it (fail), so that a caller can skip the checks that depend on a
// value; callers that need not do so discard it (_ =).

// errf records an *Error at path, or at its nearest ancestor written in the
// file when path itself was not (e.g. an inherited timeout).
func (c *checker) errf(path, format string, args ...any) { _ = c.fail(path, format, args...) }

// fail is errf that also returns the error.
func (c *checker) fail(path, format string, args ...any) error {
	line := 1
	for p := path; p != ""; p = parent(p) {
		if l, ok := c.lines[p]; ok {
			line = l
			break
		}
	}
	e := &Error{File: c.file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	c.errs = append(c.errs, e)
	return e
}

func (c *checker) set(path string) bool {
	_, ok := c.lines[path]
	return ok
}

// config checks everything; the errors are in c.errs.
func (c *checker) config(cfg *Config) {
	c.global(&cfg.Global)
	c.otlp(cfg)
	// Modules in file order, as their errors are reported.
	names := make([]string, 0, len(cfg.Modules))
	for name := range cfg.Modules {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(c.lines[join("modules", a)], c.lines[join("modules", b)]), cmp.Compare(a, b))
	})
	for _, name := range names {
		c.module(name, cfg.Modules[name])
	}
	if len(cfg.Targets) == 0 && len(cfg.TargetDiscovery) == 0 {
		c.errf("targets", "at least one target is required")
	}
	seen := map[string]string{} // name -> path of first use
	for i, t := range cfg.Targets {
		path := index("targets", i)
		if c.target(path, t, cfg) != nil && (t == nil || t.Name == "") {
			continue
		}
		if first, dup := seen[t.Name]; dup {
			c.errf(path+".name", "duplicate target name %q (first used at line %d)", t.Name, c.lines[first])
		} else {
			seen[t.Name] = path
		}
	}
	c.discoveries(cfg)
}

func (c *checker) global(g *Global) {
	if c.positive(&g.Interval, "global.interval", model.Duration(DefaultInterval)) == nil {
		_ = c.timeout(&g.Timeout, g.Interval, "global", model.Duration(DefaultTimeout))
	}
	_ = c.positive(&g.KeepAliveTimeout, "global.keep_alive_timeout", model.Duration(DefaultKeepAliveTimeout))
	_ = c.location("global.location", g.Location)
	_ = c.warmup("global.warmup", &g.Warmup, defaultWarmup)
	switch {
	case !c.set("global.max_concurrent_probes"):
		g.MaxConcurrentProbes = DefaultMaxConcurrentProbes
	case g.MaxConcurrentProbes < 1:
		c.errf("global.max_concurrent_probes", "max_concurrent_probes must be at least 1, got %d", g.MaxConcurrentProbes)
	}
}

// positive defaults an unset duration to def and rejects an explicit 0.
func (c *checker) positive(d *model.Duration, path string, def model.Duration) error {
	if !c.set(path) {
		*d = def
		return nil
	}
	if *d <= 0 {
		return c.fail(path, "%s must be greater than 0", path[len(parent(path))+1:])
	}
	return nil
}

// timeout defaults an unset timeout to min(def, 80% of the interval) and
// rejects one longer than the interval. The headroom lets a probe that
// times out end (and close its connection) before its next slot: with a
// timeout equal to the interval a hung target would be probed only every
// other slot, the one in between skipped as an overlap.
func (c *checker) timeout(t *model.Duration, interval model.Duration, parentPath string, def model.Duration) error {
	path := join(parentPath, "timeout")
	if err := c.positive(t, path, min(def, interval*4/5)); err != nil {
		return err
	}
	if *t > interval {
		return c.fail(path, "timeout %s is greater than interval %s", *t, interval)
	}
	return nil
}
