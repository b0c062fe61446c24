package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/config"
)

// probeTarget resolves the target and module of a /probe request. Only
// configured targets may be probed, unless --probe.allow-arbitrary-targets
// lets a url (with model) be probed too; such a target gets the default
// HTTP client config, never a configured target's credentials.
func (u *UI) probeTarget(cfg *config.Config, q url.Values) (*config.Target, *config.Module, int, error) {
	name, rawURL := q.Get("target"), q.Get("url")
	switch {
	case name != "" && rawURL != "":
		return nil, nil, http.StatusBadRequest, fmt.Errorf("give either target or url, not both")
	case name != "":
		t := findTarget(cfg, name)
		if t == nil {
			return nil, nil, http.StatusBadRequest, fmt.Errorf("unknown target %q: only targets named in the configuration can be probed (configured: %s)",
				name, choices(targetNames(cfg)))
		}
		m, err := pickModule(cfg, t.Modules, q.Get("module"), fmt.Sprintf("target %q", name))
		if err != nil {
			return nil, nil, http.StatusBadRequest, err
		}
		return t, m, 0, nil
	case rawURL != "":
		if !u.o.AllowArbitraryTargets {
			return nil, nil, http.StatusForbidden, fmt.Errorf("probing arbitrary URLs is disabled; start llm-prober with --probe.allow-arbitrary-targets to allow it")
		}
		return arbitraryTarget(cfg, rawURL, q)
	}
	return nil, nil, http.StatusBadRequest, fmt.Errorf("target parameter is missing (configured: %s)", choices(targetNames(cfg)))
}

func arbitraryTarget(cfg *config.Config, rawURL string, q url.Values) (*config.Target, *config.Module, int, error) {
	u, err := url.Parse(rawURL)
	switch {
	case err != nil:
		return nil, nil, http.StatusBadRequest, fmt.Errorf("invalid url")
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return nil, nil, http.StatusBadRequest, fmt.Errorf("url must be http:// or https:// with a host")
	case u.User != nil:
		return nil, nil, http.StatusBadRequest, fmt.Errorf("url must not contain credentials")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, nil, http.StatusBadRequest, fmt.Errorf("url must not have a query or fragment")
	case q.Get("model") == "":
		return nil, nil, http.StatusBadRequest, fmt.Errorf("model parameter is missing (needed with url)")
	}
	names := make([]string, 0, len(cfg.Modules))
	for n := range cfg.Modules {
		names = append(names, n)
	}
	m, err := pickModule(cfg, names, q.Get("module"), "url probes")
	if err != nil {
		return nil, nil, http.StatusBadRequest, err
	}
	t := &config.Target{
		Name: u.Scheme + "://" + u.Host, URL: strings.TrimRight(rawURL, "/"), Model: q.Get("model"),
		Modules: []string{m.Name}, Interval: cfg.Global.Interval, Timeout: cfg.Global.Timeout,
		HTTPClientConfig: commoncfg.DefaultHTTPClientConfig,
	}
	// A redirect could lead an opted-in probe anywhere; never follow one.
	t.HTTPClientConfig.FollowRedirects = false
	return t, m, 0, nil
}

// pickModule returns the named module, or the only one there is.
func pickModule(cfg *config.Config, allowed []string, name, what string) (*config.Module, error) {
	sorted := slices.Sorted(slices.Values(allowed))
	if name == "" {
		if len(allowed) != 1 {
			return nil, fmt.Errorf("module parameter is missing: %s has several modules (choices: %s)", what, choices(sorted))
		}
		name = allowed[0]
	}
	if !slices.Contains(allowed, name) || cfg.Modules[name] == nil {
		return nil, fmt.Errorf("unknown module %q for %s (choices: %s)", name, what, choices(sorted))
	}
	return cfg.Modules[name], nil
}

func findTarget(cfg *config.Config, name string) *config.Target {
	for _, t := range cfg.Targets {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func targetNames(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Targets))
	for _, t := range cfg.Targets {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

// choices lists names, cut short so a big config gives a short message.
func choices(names []string) string {
	const limit = 20
	if len(names) > limit {
		return strings.Join(names[:limit], ", ") + fmt.Sprintf(", ... (%d more)", len(names)-limit)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
