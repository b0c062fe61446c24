package main

// A minimal Prometheus source for bench --workload-from-prometheus, with
// the flag names `plan` uses; to be replaced by the shared package.

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
)

// promFlags select a Prometheus, the target's series and a window.
type promFlags struct {
	url, httpConfigFile, selector, window string
	timeout                               time.Duration
}

func addPromFlags(c *kingpin.CmdClause) *promFlags {
	p := &promFlags{}
	c.Flag("prometheus.url", "Prometheus holding the daemon's llm_prober_server_* series (with --workload-from-prometheus).").StringVar(&p.url)
	c.Flag("prometheus.http-config-file", "Client settings for --prometheus.url (prometheus/common HTTP client config YAML: basic_auth, authorization, tls_config); secrets from files.").StringVar(&p.httpConfigFile)
	c.Flag("selector", "Label matchers selecting the target's series, e.g. '{target=\"vllm-a\"}'.").Default("").StringVar(&p.selector)
	c.Flag("window", "How much history to read, ending now (Prometheus duration, e.g. 1d, 7d).").Default("7d").StringVar(&p.window)
	c.Flag("prometheus.timeout", "Timeout of all queries to --prometheus.url together.").Default("2m").DurationVar(&p.timeout)
	return p
}

// check reads the flags without any network.
func (p *promFlags) check() (time.Duration, error) {
	if p.url == "" {
		return 0, fmt.Errorf("--prometheus.url is required")
	}
	u, err := url.Parse(p.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return 0, fmt.Errorf("--prometheus.url %q is not an http(s) URL", p.url)
	}
	if s := strings.TrimSpace(p.selector); s != "" && (!strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}")) {
		return 0, fmt.Errorf("--selector %q is not a set of label matchers such as {target=\"vllm-a\"}", p.selector)
	}
	w, err := model.ParseDuration(p.window)
	if err != nil || w < model.Duration(time.Minute) {
		return 0, fmt.Errorf("--window %q is not a Prometheus duration of at least 1m", p.window)
	}
	if p.timeout <= 0 {
		return 0, fmt.Errorf("--prometheus.timeout must be positive")
	}
	return time.Duration(w), nil
}

// client builds the v1 API client; redirects are not followed.
func (p *promFlags) client() (v1.API, string, error) {
	cfg := config.DefaultHTTPClientConfig
	if p.httpConfigFile != "" {
		c, _, err := config.LoadHTTPConfigFile(p.httpConfigFile)
		if err != nil {
			return nil, "", fmt.Errorf("--prometheus.http-config-file: %w", err)
		}
		cfg = *c
	}
	cfg.FollowRedirects = false
	hc, err := config.NewClientFromConfig(cfg, "llm-prober-bench")
	if err != nil {
		return nil, "", fmt.Errorf("--prometheus.http-config-file: %w", err)
	}
	c, err := api.NewClient(api.Config{Address: p.url, Client: hc})
	if err != nil {
		return nil, "", fmt.Errorf("--prometheus.url: %w", err)
	}
	u, _ := url.Parse(p.url)
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return v1.NewAPI(c), u.Redacted(), nil
}
