package serverwatch

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llm-prober/llm-prober/collector"
	dto "github.com/prometheus/client_model/go"
)

// DefaultExtraFamilies are what an --extra-metrics-url endpoint is read
// for without --extra-metrics-match: NVIDIA DCGM exporter's GPU
// utilisation (%), framebuffer memory used (MiB) and power draw (W).
var DefaultExtraFamilies = []*regexp.Regexp{
	regexp.MustCompile(`DCGM_FI_DEV_GPU_UTIL`),
	regexp.MustCompile(`DCGM_FI_DEV_FB_USED`),
	regexp.MustCompile(`DCGM_FI_DEV_POWER_USAGE`),
}

// MaxExtraSeries bounds the series kept per extra endpoint (a DCGM
// exporter of 8 GPUs has 24 of the default families); the rest are counted.
const MaxExtraSeries = 128

// ExtraReport summarises extra endpoints' series over a run.
type ExtraReport struct {
	Endpoints []ExtraEndpoint `json:"endpoints"`
}

// ExtraEndpoint is one --extra-metrics-url over a run. Its failures are
// counted and the last one kept: they never fail the run.
type ExtraEndpoint struct {
	URL           string        `json:"url"` // no credentials or query
	Scrapes       int           `json:"scrapes"`
	Failures      int           `json:"failures"`
	LastError     string        `json:"last_error,omitempty"`
	Series        []ExtraSeries `json:"series"`
	DroppedSeries int           `json:"dropped_series,omitempty"`
}

// ExtraSeries is one series' samples over a run: gauges by mean, min and
// max; counters also by their increase.
type ExtraSeries struct {
	Name     string            `json:"name"`
	Labels   map[string]string `json:"labels,omitempty"`
	Samples  int               `json:"samples"`
	Mean     float64           `json:"mean"`
	Min      float64           `json:"min"`
	Max      float64           `json:"max"`
	Last     float64           `json:"last"`
	Counter  bool              `json:"counter,omitempty"`
	Increase float64           `json:"increase,omitempty"`

	sum, first float64
	key        string
}

// ExtraWatcher scrapes extra endpoints every interval during a run.
type ExtraWatcher struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	eps    []*extraEndpoint
}

type extraEndpoint struct {
	url string
	mu  sync.Mutex
	rep ExtraEndpoint
	idx map[string]int // series key → index in rep.Series
}

// WatchExtra scrapes every url now, then every interval until Stop,
// keeping the samples of the families res match (anchored).
func WatchExtra(ctx context.Context, client *http.Client, urls []string, res []*regexp.Regexp, interval time.Duration) *ExtraWatcher {
	if interval <= 0 {
		interval = time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &ExtraWatcher{cancel: cancel}
	for _, u := range urls {
		ep := &extraEndpoint{url: u, rep: ExtraEndpoint{URL: RedactURL(u), Series: []ExtraSeries{}}, idx: map[string]int{}}
		w.eps = append(w.eps, ep)
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for {
				ep.scrape(ctx, client, res, max(interval, 2*time.Second))
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
	}
	return w
}

// Stop ends the scrapes (one in flight is abandoned) and summarises them.
func (w *ExtraWatcher) Stop() ExtraReport {
	w.cancel()
	w.wg.Wait()
	rep := ExtraReport{Endpoints: []ExtraEndpoint{}}
	for _, ep := range w.eps {
		ep.mu.Lock()
		e := ep.rep
		e.Series = slices.Clone(e.Series)
		ep.mu.Unlock()
		for i := range e.Series {
			e.Series[i].finish()
		}
		rep.Endpoints = append(rep.Endpoints, e)
	}
	return rep
}

func (ep *extraEndpoint) scrape(ctx context.Context, client *http.Client, res []*regexp.Regexp, timeout time.Duration) {
	fams, err := collector.ScrapeFamilies(ctx, client, ep.url, timeout, res)
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil { // not the run's end cutting it off
			ep.rep.Failures++
			ep.rep.LastError = capString(err.Error())
		}
		return
	}
	ep.rep.Scrapes++
	for _, name := range slices.Sorted(maps.Keys(fams)) {
		mf := fams[name]
		counter := mf.GetType() == dto.MetricType_COUNTER
		for _, m := range mf.GetMetric() {
			v, ok := sampleValue(mf.GetType(), m)
			if !ok {
				continue
			}
			labels := metricLabels(m)
			key := name + labelString(labels)
			i, seen := ep.idx[key]
			if !seen {
				if len(ep.rep.Series) >= MaxExtraSeries {
					ep.rep.DroppedSeries++
					continue
				}
				i = len(ep.rep.Series)
				ep.idx[key] = i
				ep.rep.Series = append(ep.rep.Series, ExtraSeries{Name: capString(name), Labels: labels, Counter: counter,
					Min: v, Max: v, first: v, key: key})
			}
			ep.rep.Series[i].Add(v)
		}
	}
}

// sampleValue is a gauge's, counter's or untyped sample's value.
func sampleValue(t dto.MetricType, m *dto.Metric) (float64, bool) {
	var v float64
	switch t {
	case dto.MetricType_GAUGE:
		v = m.GetGauge().GetValue()
	case dto.MetricType_COUNTER:
		v = m.GetCounter().GetValue()
	case dto.MetricType_UNTYPED:
		v = m.GetUntyped().GetValue()
	default:
		return 0, false
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

func (s *ExtraSeries) Add(v float64) {
	s.Samples++
	s.sum += v
	s.Min, s.Max, s.Last = min(s.Min, v), max(s.Max, v), v
}

func (s *ExtraSeries) finish() {
	if s.Samples > 0 {
		s.Mean = s.sum / float64(s.Samples)
	}
	if s.Counter {
		s.Increase = max(s.Last-s.first, 0) // a reset reads as no increase
	}
}

// MergeExtra combines the reports of consecutive runs (a sweep's points)
// into one over them all: means weighted by samples, extremes of
// extremes, counters' increases summed.
func MergeExtra(reps []ExtraReport) ExtraReport {
	out := ExtraReport{Endpoints: []ExtraEndpoint{}}
	byURL := map[string]int{}
	for _, r := range reps {
		for _, e := range r.Endpoints {
			i, ok := byURL[e.URL]
			if !ok {
				i = len(out.Endpoints)
				byURL[e.URL] = i
				out.Endpoints = append(out.Endpoints, ExtraEndpoint{URL: e.URL, Series: []ExtraSeries{}})
			}
			m := &out.Endpoints[i]
			m.Scrapes += e.Scrapes
			m.Failures += e.Failures
			m.DroppedSeries = max(m.DroppedSeries, e.DroppedSeries)
			if e.LastError != "" {
				m.LastError = e.LastError
			}
			for _, s := range e.Series {
				s.key = s.Name + labelString(s.Labels)
				j := slices.IndexFunc(m.Series, func(x ExtraSeries) bool { return x.key == s.key })
				if j < 0 {
					m.Series = append(m.Series, s)
					continue
				}
				t := &m.Series[j]
				n := t.Samples + s.Samples
				if n > 0 {
					t.Mean = (t.Mean*float64(t.Samples) + s.Mean*float64(s.Samples)) / float64(n)
				}
				t.Samples, t.Min, t.Max, t.Last = n, min(t.Min, s.Min), max(t.Max, s.Max), s.Last
				t.Increase += s.Increase
			}
		}
	}
	return out
}

// labelString is labels in the exposition's {a="b"} form, sorted.
func labelString(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// ShortLabels names a series by the labels that tell GPUs apart.
func (s *ExtraSeries) ShortLabels() string {
	for _, k := range []string{"gpu", "GPU_I_ID", "device", "UUID"} {
		if v, ok := s.Labels[k]; ok {
			return fmt.Sprintf("{%s=%q}", k, v)
		}
	}
	return labelString(s.Labels)
}

// RedactURL is u without credentials, query or fragment, for reports.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return capString(p.String())
}

// Attempted reports whether every endpoint has answered or failed at
// least n times (for tests).
func (w *ExtraWatcher) Attempted(n int) bool {
	for _, ep := range w.eps {
		ep.mu.Lock()
		k := ep.rep.Scrapes + ep.rep.Failures
		ep.mu.Unlock()
		if k < n {
			return false
		}
	}
	return true
}
