package collector

import (
	"regexp"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// MaxPassthroughSeries caps raw series re-exported per target, so that a
// broad regex on a big exposition cannot blow up our /metrics.
const MaxPassthroughSeries = 2000

// passthroughPrefix keeps raw families out of our normalised namespace;
// the source name follows with every invalid character (the colon of
// vllm:foo) turned into '_'.
const passthroughPrefix = "llm_prober_passthrough_"

// ptSeries is one raw series with our label names already sanitised.
type ptSeries struct {
	names, values []string
	value         float64
	hist          *histData
	summary       *sumData
}

type sumData struct {
	count     uint64
	sum       float64
	quantiles map[float64]float64
}

// ptFamily is a raw family selected for passthrough.
type ptFamily struct {
	name, help string
	typ        dto.MetricType
	series     []ptSeries
}

// selectPassthrough copies families whose full name matches one of res,
// in name order, up to limit series; dropped counts the rest.
func selectPassthrough(fams map[string]*dto.MetricFamily, res []*regexp.Regexp, limit int) (out []ptFamily, dropped int) {
	if len(res) == 0 {
		return nil, 0
	}
	names := make([]string, 0, len(fams))
	for name := range fams {
		if matchAny(res, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	total := 0
	for _, name := range names {
		mf := fams[name]
		pf := ptFamily{name: passthroughName(name, mf.GetType()), help: mf.GetHelp(), typ: mf.GetType()}
		for _, met := range mf.GetMetric() {
			if total >= limit {
				dropped++
				continue
			}
			s, ok := ptSeriesFrom(mf.GetType(), met)
			if !ok {
				dropped++
				continue
			}
			pf.series = append(pf.series, s)
			total++
		}
		if len(pf.series) > 0 {
			out = append(out, pf)
		}
	}
	return out, dropped
}

func matchAny(res []*regexp.Regexp, name string) bool {
	for _, re := range res {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// anchor compiles a passthrough regex so that it must match the whole
// family name, as config regexes do elsewhere.
func anchor(src string) (*regexp.Regexp, error) {
	return regexp.Compile("^(?:" + src + ")$")
}

func passthroughName(name string, t dto.MetricType) string {
	n := passthroughPrefix + sanitize(name)
	if t == dto.MetricType_COUNTER && !strings.HasSuffix(n, "_total") {
		n += "_total" // promlint: counters end in _total
	}
	return n
}

// sanitize maps a name onto [a-zA-Z0-9_].
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	// A multi-byte rune became several '_'; that is fine, names stay valid.
	return string(b)
}

// ptLabelName sanitises a source label name and moves names we own or
// that Prometheus reserves out of the way.
func ptLabelName(n string) string {
	n = sanitize(n)
	switch {
	case n == "target":
		return "exported_target"
	case strings.HasPrefix(n, "__"):
		return "exported" + n
	case n != "" && n[0] >= '0' && n[0] <= '9':
		return "_" + n
	}
	return n
}

func ptSeriesFrom(t dto.MetricType, met *dto.Metric) (ptSeries, bool) {
	lps := append([]*dto.LabelPair(nil), met.GetLabel()...)
	sort.Slice(lps, func(i, j int) bool { return lps[i].GetName() < lps[j].GetName() })
	// Names that sanitising collapses onto one are left for the guard to
	// drop and count, with every other way a series can be unexportable.
	s := ptSeries{names: []string{"target"}, values: []string{""}}
	for _, lp := range lps {
		s.names = append(s.names, ptLabelName(lp.GetName()))
		s.values = append(s.values, lp.GetValue())
	}
	switch t {
	case dto.MetricType_COUNTER:
		s.value = met.GetCounter().GetValue()
	case dto.MetricType_GAUGE:
		s.value = met.GetGauge().GetValue()
	case dto.MetricType_UNTYPED:
		s.value = met.GetUntyped().GetValue()
	case dto.MetricType_HISTOGRAM:
		s.hist = histFromDTO(met.GetHistogram(), 1)
	case dto.MetricType_SUMMARY:
		sm := met.GetSummary()
		s.summary = &sumData{count: sm.GetSampleCount(), sum: sm.GetSampleSum(), quantiles: map[float64]float64{}}
		for _, q := range sm.GetQuantile() {
			s.summary.quantiles[q.GetQuantile()] = q.GetValue()
		}
	default:
		return s, false
	}
	return s, true
}
