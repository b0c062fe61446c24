package collector

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Scrape health, one series per target (reason added on failures).
var (
	descScrapeSuccess = prometheus.NewDesc("llm_prober_server_scrape_success",
		"1 if the last scrape of the target's /metrics worked, else 0.", []string{"target"}, nil)
	descScrapeDuration = prometheus.NewDesc("llm_prober_server_scrape_duration_seconds",
		"Duration of the last scrape of the target's /metrics, parsing included.", []string{"target"}, nil)
	descDataAge = prometheus.NewDesc("llm_prober_server_scrape_data_age_seconds",
		"Age of the last successfully scraped data; re-exported series are dropped once it exceeds 2 x interval + timeout.", []string{"target"}, nil)
	descScrapes = prometheus.NewDesc("llm_prober_server_scrapes_total",
		"Scrapes of the target's /metrics.", []string{"target"}, nil)
	descScrapeFailures = prometheus.NewDesc("llm_prober_server_scrape_failures_total",
		"Failed scrapes of the target's /metrics, by reason.", []string{"target", "reason"}, nil)
	descBackendInfo = prometheus.NewDesc("llm_prober_server_backend_info",
		"The backend whose mapping is applied to the target (configured or detected).", []string{"target", "backend"}, nil)
	descPassthroughDropped = prometheus.NewDesc("llm_prober_server_passthrough_series_dropped",
		"Series matched by passthrough but not re-exported in the last scrape (over the cap or unrepresentable).", []string{"target"}, nil)
)

// collect sends the target's health and, unless stale, its data.
func (s *scraper) collect(ch chan<- prometheus.Metric, now time.Time, g *ptGuard) {
	s.mu.Lock()
	scrapes, ran, ok, dur, data := s.ctr.scrapes, s.ran, s.lastOK, s.lastDur, s.data
	failures := make(map[string]float64, len(s.ctr.failures))
	for r, v := range s.ctr.failures {
		failures[r] = v
	}
	s.mu.Unlock()

	name := s.spec.name
	send(ch, descScrapes, prometheus.CounterValue, scrapes, name)
	for r, v := range failures {
		send(ch, descScrapeFailures, prometheus.CounterValue, v, name, r)
	}
	if ran {
		send(ch, descScrapeSuccess, prometheus.GaugeValue, boolFloat(ok), name)
		send(ch, descScrapeDuration, prometheus.GaugeValue, dur.Seconds(), name)
	}
	backend := string(s.spec.backend)
	if data != nil {
		backend = data.backend
	}
	if backend != "" && backend != "auto" {
		send(ch, descBackendInfo, prometheus.GaugeValue, 1, name, backend)
	}
	if data == nil {
		return
	}
	age := now.Sub(data.at)
	send(ch, descDataAge, prometheus.GaugeValue, age.Seconds(), name)
	if len(s.res) > 0 {
		send(ch, descPassthroughDropped, prometheus.GaugeValue, float64(data.ptDropped), name)
	}
	if age > s.spec.staleAfter() {
		return // old data must not pass for current
	}
	for _, smp := range data.samples {
		lv := append([]string{name, data.backend}, smp.labels...)
		if smp.hist != nil {
			m, err := prometheus.NewConstHistogram(smp.fam.desc, smp.hist.count, smp.hist.sum, smp.hist.buckets, lv...)
			sendMetric(ch, m, err)
			continue
		}
		vt := prometheus.GaugeValue
		if smp.fam.kind == kindCounter {
			vt = prometheus.CounterValue
		}
		send(ch, smp.fam.desc, vt, smp.value, lv...)
	}
	for _, pf := range data.pt {
		help, ok := g.admit(pf)
		if !ok {
			continue
		}
		for _, ps := range pf.series {
			desc := prometheus.NewDesc(pf.name, help, ps.names, nil)
			lv := append([]string{name}, ps.values[1:]...)
			switch {
			case ps.hist != nil:
				m, err := prometheus.NewConstHistogram(desc, ps.hist.count, ps.hist.sum, ps.hist.buckets, lv...)
				sendMetric(ch, m, err)
			case ps.summary != nil:
				m, err := prometheus.NewConstSummary(desc, ps.summary.count, ps.summary.sum, ps.summary.quantiles, lv...)
				sendMetric(ch, m, err)
			default:
				send(ch, desc, valueType(pf.typ), ps.value, lv...)
			}
		}
	}
}

// send drops a metric that cannot be built (e.g. a label value that is not
// UTF-8) rather than failing the whole gather.
func send(ch chan<- prometheus.Metric, d *prometheus.Desc, vt prometheus.ValueType, v float64, lv ...string) {
	m, err := prometheus.NewConstMetric(d, vt, v, lv...)
	sendMetric(ch, m, err)
}

func sendMetric(ch chan<- prometheus.Metric, m prometheus.Metric, err error) {
	if err == nil {
		ch <- m
	}
}

func valueType(t dto.MetricType) prometheus.ValueType {
	switch t {
	case dto.MetricType_COUNTER:
		return prometheus.CounterValue
	case dto.MetricType_GAUGE:
		return prometheus.GaugeValue
	}
	return prometheus.UntypedValue
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ptGuard keeps passthrough families from different targets consistent
// within one Collect: the registry fails the whole gather when a name has
// two helps, two types, or clashes with a histogram's _sum/_count/_bucket.
type ptGuard struct {
	fams map[string]ptKind
}

type ptKind struct {
	typ  dto.MetricType
	help string
}

func newPTGuard() *ptGuard { return &ptGuard{fams: map[string]ptKind{}} }

// admit returns the help to use for pf, or false if pf would clash.
func (g *ptGuard) admit(pf ptFamily) (string, bool) {
	if k, ok := g.fams[pf.name]; ok {
		return k.help, k.typ == pf.typ
	}
	for _, suf := range []string{"_sum", "_count", "_bucket"} {
		if base, ok := strings.CutSuffix(pf.name, suf); ok && isComplex(g.fams, base) {
			return "", false
		}
		if isComplexType(pf.typ) {
			if _, ok := g.fams[pf.name+suf]; ok {
				return "", false
			}
		}
	}
	help := pf.help
	if help == "" {
		help = "Passed through from the target's own /metrics."
	}
	g.fams[pf.name] = ptKind{typ: pf.typ, help: help}
	return help, true
}

func isComplex(fams map[string]ptKind, name string) bool {
	k, ok := fams[name]
	return ok && isComplexType(k.typ)
}

func isComplexType(t dto.MetricType) bool {
	return t == dto.MetricType_HISTOGRAM || t == dto.MetricType_SUMMARY
}
