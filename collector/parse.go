package collector

import (
	"bytes"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads a classic text exposition, the lines fetch kept of it. The
// text parser keeps duplicate series and duplicate labels as they are;
// re-exporting those would make our own /metrics fail to gather, so they
// fail the scrape here. Histograms that no Prometheus client could have
// written are left out: badHist counts them. So are gauges, counters and
// untyped series whose value is NaN or infinite (nonFinite): re-exported,
// they would poison every sum and ratio a dashboard takes over them.
func parse(body []byte) (fams map[string]*dto.MetricFamily, badHist, nonFinite int, _ *scrapeError) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, 0, 0, failf(reasonParse, "%v", err)
	}
	for name, mf := range fams {
		if serr := checkFamily(name, mf); serr != nil {
			return nil, 0, 0, serr
		}
		badHist += dropBadHistograms(mf)
		nonFinite += dropNonFiniteSeries(mf)
	}
	return fams, badHist, nonFinite, nil
}

// dropNonFiniteSeries removes the series of mf whose value is NaN or ±Inf and
// returns how many.
func dropNonFiniteSeries(mf *dto.MetricFamily) int {
	var value func(*dto.Metric) float64
	switch mf.GetType() {
	case dto.MetricType_GAUGE:
		value = func(m *dto.Metric) float64 { return m.GetGauge().GetValue() }
	case dto.MetricType_COUNTER:
		value = func(m *dto.Metric) float64 { return m.GetCounter().GetValue() }
	case dto.MetricType_UNTYPED:
		value = func(m *dto.Metric) float64 { return m.GetUntyped().GetValue() }
	default:
		return 0
	}
	kept := mf.Metric[:0]
	for _, met := range mf.Metric {
		if finite(value(met)) {
			kept = append(kept, met)
		}
	}
	n := len(mf.Metric) - len(kept)
	mf.Metric = kept
	return n
}

// dropBadHistograms removes the histograms of mf that validHistogram
// refuses and returns how many.
func dropBadHistograms(mf *dto.MetricFamily) int {
	if mf.GetType() != dto.MetricType_HISTOGRAM {
		return 0
	}
	kept := mf.Metric[:0]
	for _, met := range mf.Metric {
		if validHistogram(met.GetHistogram()) {
			kept = append(kept, met)
		}
	}
	n := len(mf.Metric) - len(kept)
	mf.Metric = kept
	return n
}

func checkFamily(name string, mf *dto.MetricFamily) *scrapeError {
	seen := make(map[string]struct{}, len(mf.GetMetric()))
	for _, met := range mf.GetMetric() {
		pairs := make([]string, 0, len(met.GetLabel()))
		names := make(map[string]struct{}, len(met.GetLabel()))
		for _, lp := range met.GetLabel() {
			if _, dup := names[lp.GetName()]; dup {
				return failf(reasonParse, "family %q: label %q appears twice in one series", name, lp.GetName())
			}
			names[lp.GetName()] = struct{}{}
			pairs = append(pairs, lp.GetName()+"\xfe"+lp.GetValue())
		}
		sort.Strings(pairs)
		key := strings.Join(pairs, "\xff")
		if _, dup := seen[key]; dup {
			return failf(reasonDuplicate, "family %q: series {%s} appears twice", name, strings.NewReplacer("\xfe", "=", "\xff", ",").Replace(key))
		}
		seen[key] = struct{}{}
		if h := met.GetHistogram(); h != nil {
			bounds := make(map[float64]struct{}, len(h.GetBucket()))
			for _, b := range h.GetBucket() {
				if _, dup := bounds[b.GetUpperBound()]; dup {
					return failf(reasonDuplicate, "histogram %q: bucket le=%g appears twice", name, b.GetUpperBound())
				}
				bounds[b.GetUpperBound()] = struct{}{}
			}
		}
	}
	return nil
}
