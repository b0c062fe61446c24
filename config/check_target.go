package config

import (
	"errors"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/backend"
)

// reservedLabels are the label names llm-prober puts on its own series (and
// job/instance, which Prometheus owns); a user label may not shadow them.
var reservedLabels = []string{
	"target", "model", "module", "url", "backend", "reason", "slo",
	"validator", "engine", "position", "le", "quantile", "job", "instance",
	"location",
}

const defaultServerMetricsTimeout = model.Duration(10e9) // 10s

// target checks a target; it returns an error if any check failed.
func (c *checker) target(path string, t *Target, cfg *Config) error {
	if t == nil {
		return c.fail(path, "target is empty")
	}
	n := len(c.errs)
	if c.set(path + ".discovered_by") {
		c.errf(path+".discovered_by", "discovered_by is set by the prober, not the file")
	}
	_ = c.name(path+".name", "target", t.Name)
	_ = c.url(path+".url", t)
	if t.Model == "" {
		c.errf(path+".model", "a target needs a model")
	}
	if t.Backend == "" {
		t.Backend = backend.Auto
	}
	if !isBackend(t.Backend) {
		c.errf(path+".backend", "unknown backend %q (want one of %v)", t.Backend, backend.Names())
	}
	_ = c.targetModules(path+".modules", t, cfg)
	if c.positive(&t.Interval, path+".interval", cfg.Global.Interval) == nil {
		_ = c.timeout(&t.Timeout, t.Interval, path, cfg.Global.Timeout)
		if c.serverMetrics(path+".server_metrics", &t.ServerMetrics, t.Interval) == nil {
			_ = c.capacity(path+".capacity", t.Capacity, &t.ServerMetrics)
		}
	}
	_ = c.labels(path+".labels", t.Labels)
	_ = c.warmup(path+".warmup", &t.Warmup, cfg.Global.Warmup)
	if len(c.errs) > n {
		return c.errs[n]
	}
	return nil
}

// url checks the base URL; credentials belong in http_client_config, where
// they are kept out of logs and the info metric.
func (c *checker) url(path string, t *Target) error {
	if t.URL == "" {
		return c.fail(path, "a target needs a url")
	}
	if len(t.URL) > MaxURLBytes {
		return c.fail(path, "url of %d bytes is over the %d-byte limit", len(t.URL), MaxURLBytes)
	}
	u, err := url.Parse(t.URL)
	var ue *url.Error
	switch {
	case errors.As(err, &ue): // ue.Err only: the whole error repeats the URL
		return c.fail(path, "invalid url: %v", ue.Err)
	case err != nil:
		return c.fail(path, "invalid url: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return c.fail(path, "url %q must start with http:// or https://", t.RedactedURL())
	case u.User != nil:
		return c.fail(path, "url must not contain credentials; use http_client_config.basic_auth or authorization")
	case u.Host == "":
		return c.fail(path, "url %q has no host", t.RedactedURL())
	case u.Fragment != "":
		return c.fail(path, "url must not have a #fragment")
	case apiSuffix(u.Path) != "":
		// The prober appends the endpoint to the URL: a base URL copied
		// from an OpenAI SDK (".../v1") would probe /v1/v1/chat/completions.
		return c.fail(path, "url %q ends in %s: drop it, llm-prober adds /v1/chat/completions or /v1/completions itself", t.RedactedURL(), apiSuffix(u.Path))
	case u.RawQuery != "" || u.ForceQuery:
		// Paths are appended to the URL, and a query (often an API key)
		// would be mangled and shown on /config.
		return c.fail(path, "url must not have a ?query; put credentials in http_client_config and headers in http_client_config.http_headers")
	}
	t.URL = strings.TrimRight(t.URL, "/")
	return nil
}

// apiSuffix returns the OpenAI API path that path ends in, if any.
func apiSuffix(path string) string {
	path = strings.TrimRight(path, "/")
	for _, s := range []string{"/v1/chat/completions", "/v1/completions", "/v1"} {
		if len(path) >= len(s) && strings.EqualFold(path[len(path)-len(s):], s) {
			return path[len(path)-len(s):]
		}
	}
	return ""
}

func (c *checker) targetModules(path string, t *Target, cfg *Config) error {
	if len(t.Modules) == 0 {
		return c.fail(path, "a target needs at least one module")
	}
	var err error
	for i, name := range t.Modules {
		if _, ok := cfg.Modules[name]; !ok {
			err = c.fail(index(path, i), "unknown module %q%s", name, hint(name, slices.Collect(maps.Keys(cfg.Modules))))
		} else if slices.Index(t.Modules, name) < i {
			err = c.fail(index(path, i), "module %q is listed twice", name)
		}
	}
	return err
}

// labels checks user labels, which are exported only on the info metric.
func (c *checker) labels(path string, ls model.LabelSet) error {
	if len(ls) > MaxTargetLabels {
		return c.fail(path, "%d labels; at most %d are allowed", len(ls), MaxTargetLabels)
	}
	names := make([]string, 0, len(ls))
	for n := range ls {
		names = append(names, string(n))
	}
	slices.Sort(names)
	var err error
	for _, n := range names {
		p := join(path, n)
		switch {
		case !model.LegacyValidation.IsValidLabelName(n) || strings.HasPrefix(n, "__"):
			err = c.fail(p, "invalid label name %q (want [a-zA-Z_][a-zA-Z0-9_]*, not starting with __)", n)
		case slices.Contains(reservedLabels, n):
			err = c.fail(p, "label name %q is reserved by llm-prober", n)
		case len(n) > MaxLabelNameBytes:
			err = c.fail(p, "label name of %d bytes is over the %d-byte limit", len(n), MaxLabelNameBytes)
		case len(ls[model.LabelName(n)]) > MaxLabelValueBytes:
			err = c.fail(p, "label value of %d bytes is over the %d-byte limit", len(ls[model.LabelName(n)]), MaxLabelValueBytes)
		case !utf8.ValidString(string(ls[model.LabelName(n)])):
			err = c.fail(p, "label value is not valid UTF-8")
		}
	}
	return err
}

func (c *checker) serverMetrics(path string, sm *ServerMetrics, targetInterval model.Duration) error {
	if sm.Path == "" {
		sm.Path = DefaultMetricsPath
	}
	if !strings.HasPrefix(sm.Path, "/") {
		c.errf(path+".path", "path %q must start with /", sm.Path)
	}
	if err := c.positive(&sm.Interval, path+".interval", targetInterval); err != nil {
		return err
	}
	return c.timeout(&sm.Timeout, sm.Interval, path, defaultServerMetricsTimeout)
}
