package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/loadtest"
)

// benchExtra is --extra-metrics-url's state: the endpoints' client, the
// families kept, and each run's summary for a sweep's table.
type benchExtra struct {
	client *http.Client
	urls   []string
	res    []*regexp.Regexp
	points []benchExtraPoint
}

type benchExtraPoint struct {
	label string
	rep   loadtest.ExtraReport
}

// parseExtra checks --extra-metrics-url and --extra-metrics-match (exit 2).
func (env *benchEnv) parseExtra() error {
	b := env.b
	if len(b.extraMatch) > 0 && len(b.extraURLs) == 0 {
		return fmt.Errorf("--extra-metrics-match needs --extra-metrics-url")
	}
	if len(b.extraURLs) == 0 {
		return nil
	}
	for _, u := range b.extraURLs {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("--extra-metrics-url %q: want an http(s) URL such as http://dcgm-exporter:9400/metrics", loadtest.RedactURL(u))
		}
	}
	res := append([]*regexp.Regexp(nil), loadtest.DefaultExtraFamilies...)
	for _, m := range b.extraMatch {
		re, err := regexp.Compile("^(?:" + m + ")$")
		if err != nil {
			return fmt.Errorf("--extra-metrics-match %q: %w", m, err)
		}
		res = append(res, re)
	}
	// Exporters are read like a scrape: TLS verified, redirects not
	// followed (a 3xx is reported as the endpoint's failure).
	hc := commoncfg.DefaultHTTPClientConfig
	hc.FollowRedirects = false
	client, err := commoncfg.NewClientFromConfig(hc, "llm-prober-bench-extra")
	if err != nil {
		return fmt.Errorf("--extra-metrics-url client: %w", err)
	}
	env.extra = &benchExtra{client: client, urls: b.extraURLs, res: res}
	return nil
}

// collectMetadata asks the server about itself (unless
// --no-server-metrics) and describes this machine, then prints both.
func (env *benchEnv) collectMetadata(ctx context.Context) {
	m := &loadtest.Metadata{Client: loadtest.ClientMetadata(versionLine())}
	if env.b.serverMetrics {
		m.Server = loadtest.ServerMetadata(ctx, env.client, env.target)
	}
	env.meta = m
	m.WriteText(env.out)
}

// watchExtra starts the extra endpoints' scrapes for one run; nil
// without --extra-metrics-url.
func (env *benchEnv) watchExtra(ctx context.Context) *loadtest.ExtraWatcher {
	if env.extra == nil {
		return nil
	}
	return loadtest.WatchExtra(ctx, env.extra.client, env.extra.urls, env.extra.res, env.b.metricsInterval)
}

// stopExtra ends a run's scrapes and keeps its summary under label.
func (env *benchEnv) stopExtra(w *loadtest.ExtraWatcher, label string) *loadtest.ExtraReport {
	if w == nil {
		return nil
	}
	rep := w.Stop()
	label = strings.TrimSuffix(strings.TrimSpace(label), ":")
	if label == "" {
		label = "run"
	}
	env.extra.points = append(env.extra.points, benchExtraPoint{label, rep})
	return &rep
}

// writeExtraPoints prints each sweep point's (or run's) extra metrics,
// then the whole.
func (env *benchEnv) writeExtraPoints() {
	if env.extra == nil || len(env.extra.points) == 0 {
		return
	}
	var all []loadtest.ExtraReport
	for _, p := range env.extra.points {
		p.rep.WriteText(env.out, "Extra metrics: "+p.label)
		all = append(all, p.rep)
	}
	total := loadtest.MergeExtra(all)
	total.WriteText(env.out, "Extra metrics over every point")
}

// writeExtra prints one run's extra metrics.
func (env *benchEnv) writeExtra(res *benchResult) {
	if res.extra != nil {
		res.extra.WriteText(env.out, "Extra metrics during the run")
	}
}
