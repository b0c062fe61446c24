package collector

import (
	"context"
	"net/http"
	"regexp"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llm-prober/llm-prober/config"
)

// ScrapeFamilies GETs url as a target scrape does (MaxBodyBytes, the line
// filter, MaxParsedSeries, the text parser's checks) and returns the
// families whose names a regex of res matches as a whole: for callers
// that want a few families of any exporter (the bench's engine info, a
// DCGM exporter), not a target's mapped signals.
func ScrapeFamilies(ctx context.Context, client *http.Client, url string, timeout time.Duration, res []*regexp.Regexp) (map[string]*dto.MetricFamily, error) {
	anchored := make([]*regexp.Regexp, len(res))
	for i, re := range res {
		anchored[i] = regexp.MustCompile("^(?:" + re.String() + ")$")
	}
	body, serr := fetch(ctx, client, url, timeout, MaxBodyBytes, newFamilyFilter(nil, anchored), MaxParsedSeries)
	if serr != nil {
		return nil, serr
	}
	fams, _, _, serr := parse(body)
	if serr != nil {
		return nil, serr
	}
	return fams, nil
}

// MetricsURL is where t's server metrics are scraped (its server_metrics
// path, else /metrics).
func MetricsURL(t *config.Target) string { return newSpec(t).url }
