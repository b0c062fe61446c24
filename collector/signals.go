package collector

import (
	"context"
	"net/http"
	"time"

	"github.com/go-kit/log"

	"github.com/llm-prober/llm-prober/config"
)

// Signals is one scrape of a target's server metrics, normalised and
// folded to one number per family: summed over engines, models and other
// labels (ratios: the maximum), histograms as name_sum and name_count.
// Keys are the re-exported names, e.g. llm_prober_server_kv_cache_usage_ratio.
type Signals struct {
	At      time.Time
	Backend string // the mapping used, "unknown" if none matched
	Values  map[string]float64
}

// ScrapeSignals scrapes t's server metrics once with client, outside any
// Manager, for callers that need a point-in-time view (the bench).
func ScrapeSignals(ctx context.Context, client *http.Client, t *config.Target) (*Signals, error) {
	spec := newSpec(t)
	filter := specFilter(spec, nil)
	body, serr := fetch(ctx, client, spec.url, spec.timeout, MaxBodyBytes, filter, MaxParsedSeries)
	if serr != nil {
		return nil, serr
	}
	snap, serr := (&scraper{spec: spec, logger: log.NewNopLogger(), filter: filter}).process(body)
	if serr != nil {
		return nil, serr
	}
	out := &Signals{At: time.Now(), Backend: snap.backend, Values: map[string]float64{}}
	for _, s := range snap.samples {
		name := s.fam.name
		switch {
		case s.hist != nil:
			out.Values[name+"_sum"] += s.hist.sum
			out.Values[name+"_count"] += float64(s.hist.count)
		case s.fam.useMax:
			if v, ok := out.Values[name]; !ok || s.value > v {
				out.Values[name] = s.value
			}
		default:
			out.Values[name] += s.value
		}
	}
	return out, nil
}
