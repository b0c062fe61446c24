package promsource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
)

// ErrNoData marks an answer with no series: the selector, the window or
// the metric is wrong, not Prometheus.
var ErrNoData = errors.New("no data")

// Source queries one Prometheus for the series of the selected targets.
type Source struct {
	api v1.API
	cfg Config
	url string // for messages: no credentials (Config refuses them)
	now func() time.Time
}

// New builds the client: the http_client_config file if any (secrets
// from files only), TLS verified unless the file says otherwise, and
// redirects never followed — a redirect could carry the credentials to
// another host, and a plan must come from the Prometheus named.
func New(cfg Config) (*Source, error) {
	hc := config.DefaultHTTPClientConfig
	if cfg.HTTPConfigFile != "" {
		c, _, err := config.LoadHTTPConfigFile(cfg.HTTPConfigFile)
		if err != nil {
			return nil, fmt.Errorf("--prometheus.http-config-file %s: %w", cfg.HTTPConfigFile, err)
		}
		if err := inlineSecret(c); err != nil {
			return nil, fmt.Errorf("--prometheus.http-config-file %s: %w", cfg.HTTPConfigFile, err)
		}
		hc = *c
	}
	hc.FollowRedirects = false
	client, err := config.NewClientFromConfig(hc, "llm-prober")
	if err != nil {
		return nil, fmt.Errorf("--prometheus.http-config-file %s: %w", cfg.HTTPConfigFile, err)
	}
	client.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		return fmt.Errorf("redirect to %s not followed: give the final URL in --prometheus.url", req.URL.Redacted())
	}
	client.Timeout = cfg.Timeout
	maxBytes := cfg.MaxResponseBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxResponseBytes
	}
	client.Transport = capTransport{rt: client.Transport, max: maxBytes}
	ac, err := api.NewClient(api.Config{Address: cfg.URL.String(), Client: client})
	if err != nil {
		return nil, fmt.Errorf("--prometheus.url: %w", err)
	}
	base := *cfg.URL
	qc := &queryClient{client: client, base: &base, timeout: cfg.Timeout, budget: maxBytes}
	return &Source{api: boundedAPI{API: streamAPI{API: v1.NewAPI(ac), qc: qc}, timeout: cfg.Timeout, url: cfg.URL.Redacted()},
		cfg: cfg, url: cfg.URL.Redacted(), now: time.Now}, nil
}

// inlineSecret refuses secrets written in the file itself: they are
// shown wherever the file is, and the project keeps secrets in files.
func inlineSecret(c *config.HTTPClientConfig) error {
	switch {
	case c.BasicAuth != nil && c.BasicAuth.Password != "":
		return errors.New("basic_auth.password: inline secrets are not allowed; use basic_auth.password_file")
	case c.Authorization != nil && c.Authorization.Credentials != "":
		return errors.New("authorization.credentials: inline secrets are not allowed; use authorization.credentials_file")
	case c.BearerToken != "":
		return errors.New("bearer_token: inline secrets are not allowed; use authorization.credentials_file")
	case c.OAuth2 != nil && c.OAuth2.ClientSecret != "":
		return errors.New("oauth2.client_secret: inline secrets are not allowed; use oauth2.client_secret_file")
	case c.TLSConfig.Key != "":
		return errors.New("tls_config.key: inline secrets are not allowed; use tls_config.key_file")
	}
	return nil
}

// End is the end of the window: --window.end, else now.
func (s *Source) End() time.Time {
	if !s.cfg.End.IsZero() {
		return s.cfg.End
	}
	return s.now()
}

// Window is the configured window.
func (s *Source) Window() time.Duration { return s.cfg.Window }

// Selector is the selector as given, in braces, for messages.
func (s *Source) Selector() string { return "{" + s.cfg.Matchers + "}" }

// URL is Prometheus's URL, for messages.
func (s *Source) URL() string { return s.url }

// sel is metric{matchers}.
func (s *Source) sel(metric string) string { return metric + "{" + s.cfg.Matchers + "}" }

// query runs an instant query at the window's end.
func (s *Source) query(ctx context.Context, q string) (model.Vector, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	v, _, _, err := s.api.Query(ctx, q, s.End(), v1.WithTimeout(s.cfg.Timeout))
	if err != nil {
		return nil, s.wrap(err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("the Prometheus at %s answered %s for %s, want a vector", s.url, v.Type(), q)
	}
	return vec, nil
}

// queryRange runs a range query over the window.
func (s *Source) queryRange(ctx context.Context, q string, step time.Duration) (model.Matrix, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	end := s.End()
	v, _, _, err := s.api.QueryRange(ctx, q, v1.Range{Start: end.Add(-s.cfg.Window), End: end, Step: step}, v1.WithTimeout(s.cfg.Timeout))
	if err != nil {
		return nil, s.wrap(err)
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return nil, fmt.Errorf("the Prometheus at %s answered %s for %s, want a matrix", s.url, v.Type(), q)
	}
	return m, nil
}

func (s *Source) wrap(err error) error {
	return fmt.Errorf("querying Prometheus at %s: %w", s.url, err)
}
