package collector

import (
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/llm-prober/llm-prober/internal/textfmt"
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
	descDroppedSeries = prometheus.NewDesc("llm_prober_server_metrics_dropped_series_total",
		"Series of the target left out of our /metrics because the exposition could not carry them, by reason (invalid, type_conflict, duplicate); counted once per scrape of the target.", []string{"target", "reason"}, nil)
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
	sendFixed(ch, descScrapes, prometheus.CounterValue, scrapes, name)
	for r, v := range failures {
		sendFixed(ch, descScrapeFailures, prometheus.CounterValue, v, name, r)
	}
	if ran {
		sendFixed(ch, descScrapeSuccess, prometheus.GaugeValue, boolFloat(ok), name)
		sendFixed(ch, descScrapeDuration, prometheus.GaugeValue, dur.Seconds(), name)
	}
	backend := string(s.spec.backend)
	if data != nil {
		backend = data.backend
	}
	if !detects(backend) {
		sendFixed(ch, descBackendInfo, prometheus.GaugeValue, 1, name, backend)
	}
	var d drops
	if data != nil {
		age := now.Sub(data.at)
		sendFixed(ch, descDataAge, prometheus.GaugeValue, age.Seconds(), name)
		if len(s.res) > 0 {
			sendFixed(ch, descPassthroughDropped, prometheus.GaugeValue, float64(data.ptDropped), name)
		}
		if age <= s.spec.staleAfter() { // old data must not pass for current
			d = s.emitData(ch, data, g)
		}
		d[dropBadHistogram] = data.badHist
		d[dropNonFinite] = data.nonFinite
	}
	for r, v := range s.countDrops(data, d) {
		if v > 0 {
			sendFixed(ch, descDroppedSeries, prometheus.CounterValue, v, name, dropReasons[r])
		}
	}
	s.collectCapacity(ch, now)
}

// countDrops adds the drops of snapshot data to the target's counter once
// per snapshot: the counter then follows the target's scrapes, not how
// often we are scraped. A later Collect may drop more of the same
// snapshot (another target's clashing family appeared), hence the max.
func (s *scraper) countDrops(data *snapshot, d drops) [numDropReasons]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if data != nil && data == s.data {
		for r, n := range d {
			if n > s.dropsCounted[r] {
				s.ctr.dropped[r] += float64(n - s.dropsCounted[r])
				s.dropsCounted[r] = n
			}
		}
	}
	return s.ctr.dropped
}

// emitData sends the re-exported series of a fresh snapshot and returns
// how many it had to drop, by reason.
func (s *scraper) emitData(ch chan<- prometheus.Metric, data *snapshot, g *ptGuard) drops {
	var d drops
	name := s.spec.name
	for _, smp := range data.samples {
		lv := safeValues(append([]string{name, data.backend}, smp.labels...))
		var err error
		if smp.hist != nil {
			var m prometheus.Metric
			m, err = prometheus.NewConstHistogram(smp.fam.desc, smp.hist.count, smp.hist.sum, smp.hist.buckets, lv...)
			err = sendMetric(ch, m, err)
		} else {
			vt := prometheus.GaugeValue
			if smp.fam.kind == kindCounter {
				vt = prometheus.CounterValue
			}
			err = send(ch, smp.fam.desc, vt, smp.value, lv...)
		}
		if err != nil {
			d[dropInvalid]++ // e.g. a model label that is not UTF-8
		}
	}
	for i := range data.pt {
		pf := &data.pt[i]
		help, reason, ok := g.family(pf)
		if !ok {
			d[reason] += len(pf.series)
			continue
		}
		for j := range pf.series {
			ps := &pf.series[j]
			if reason, ok := g.series(pf, ps, name); !ok {
				d[reason]++
				continue
			}
			if emitPassthrough(ch, pf, help, ps, name) != nil {
				d[dropInvalid]++
			}
		}
	}
	return d
}

func emitPassthrough(ch chan<- prometheus.Metric, pf *ptFamily, help string, ps *ptSeries, target string) error {
	desc := prometheus.NewDesc(pf.name, help, ps.names, nil)
	lv := safeValues(append([]string{target}, ps.values[1:]...))
	switch {
	case ps.hist != nil:
		m, err := prometheus.NewConstHistogram(desc, ps.hist.count, ps.hist.sum, ps.hist.buckets, lv...)
		return sendMetric(ch, m, err)
	case ps.summary != nil:
		m, err := prometheus.NewConstSummary(desc, ps.summary.count, ps.summary.sum, ps.summary.quantiles, lv...)
		return sendMetric(ch, m, err)
	default:
		return send(ch, desc, valueType(pf.typ), ps.value, lv...)
	}
}

// safeValues escapes terminal control sequences in label values taken
// from servers and files (a model name, a knee file's workload): the
// exposition escapes only \\, " and \n, and an ESC would reach whoever
// curls /metrics. A value that is not UTF-8 is left for the client
// library to refuse (the series is dropped and counted, as before).
func safeValues(lv []string) []string {
	for i, v := range lv {
		if utf8.ValidString(v) {
			lv[i] = textfmt.Safe(v)
		}
	}
	return lv
}

// send drops a metric that cannot be built (e.g. a label value that is not
// UTF-8) rather than failing the whole gather.
// sendFixed sends one of the collector's own health series: their
// descriptors and label counts are fixed, so building them cannot fail.
func sendFixed(ch chan<- prometheus.Metric, d *prometheus.Desc, vt prometheus.ValueType, v float64, lv ...string) {
	_ = send(ch, d, vt, v, lv...)
}

func send(ch chan<- prometheus.Metric, d *prometheus.Desc, vt prometheus.ValueType, v float64, lv ...string) error {
	m, err := prometheus.NewConstMetric(d, vt, v, safeValues(lv)...)
	return sendMetric(ch, m, err)
}

func sendMetric(ch chan<- prometheus.Metric, m prometheus.Metric, err error) error {
	if err == nil {
		ch <- m
	}
	return err
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
