package serverwatch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/config"
	commoncfg "github.com/prometheus/common/config"
)

// ExtraSet is --extra-metrics-url's state over one invocation: the
// endpoints' client, the families kept, and each run's summary for a
// sweep's table. A nil *ExtraSet (no endpoint given) does nothing.
type ExtraSet struct {
	client *http.Client
	urls   []string
	res    []*regexp.Regexp
	Points []extraPoint
}

type extraPoint struct {
	Label string
	Rep   ExtraReport
}

// NewExtraSet checks --extra-metrics-url and --extra-metrics-match (its
// errors name the flag); nil, nil without urls.
func NewExtraSet(urls, matches []string) (*ExtraSet, error) {
	if len(matches) > 0 && len(urls) == 0 {
		return nil, fmt.Errorf("--extra-metrics-match needs --extra-metrics-url")
	}
	if len(urls) == 0 {
		return nil, nil
	}
	for _, u := range urls {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("--extra-metrics-url %q: want an http(s) URL such as http://dcgm-exporter:9400/metrics", RedactURL(u))
		}
	}
	res := append([]*regexp.Regexp(nil), DefaultExtraFamilies...)
	for _, m := range matches {
		re, err := regexp.Compile("^(?:" + m + ")$")
		if err != nil {
			return nil, fmt.Errorf("--extra-metrics-match %q: %w", m, err)
		}
		res = append(res, re)
	}
	// Exporters are read like a scrape: TLS verified, redirects not
	// followed (a 3xx is reported as the endpoint's failure).
	hc := commoncfg.DefaultHTTPClientConfig
	hc.FollowRedirects = false
	client, err := commoncfg.NewClientFromConfig(hc, "llm-prober-bench-extra")
	if err != nil {
		return nil, fmt.Errorf("--extra-metrics-url client: %w", err)
	}
	return &ExtraSet{client: client, urls: urls, res: res}, nil
}

// Watch starts one run's scrapes, every interval (--metrics-interval).
func (s *ExtraSet) Watch(ctx context.Context, interval time.Duration) *ExtraWatcher {
	if s == nil {
		return nil
	}
	return WatchExtra(ctx, s.client, s.urls, s.res, interval)
}

// Stop ends a run's scrapes and keeps its summary under label (a sweep
// point's progress label, "run" if empty).
func (s *ExtraSet) Stop(w *ExtraWatcher, label string) *ExtraReport {
	if s == nil || w == nil {
		return nil
	}
	rep := w.Stop()
	label = strings.TrimSuffix(strings.TrimSpace(label), ":")
	if label == "" {
		label = "run"
	}
	s.Points = append(s.Points, extraPoint{label, rep})
	return &rep
}

// CollectMetadata describes the client (version is llm-prober's) and,
// with askServer (--server-metrics), what t's server says about itself.
func CollectMetadata(ctx context.Context, client *http.Client, t *config.Target, askServer bool, version string) *Metadata {
	m := &Metadata{Client: ClientMetadata(version)}
	if askServer {
		m.Server = ServerMetadata(ctx, client, t)
	}
	return m
}
