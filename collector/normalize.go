package collector

import (
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// sample is one normalised series. labels hold model, engine and the
// family's extra labels; target and backend are added at Collect time.
type sample struct {
	fam    *family
	labels []string
	value  float64
	hist   *histData
}

// normalize applies mapping m to a parsed exposition. dropped counts
// source series that could not be merged (histograms whose buckets differ).
func normalize(m *Mapping, fams map[string]*dto.MetricFamily, fallbackModel string) (out []sample, dropped int) {
	idx := indexFamilies(fams, m.Aliases)
	agg := map[string]*sample{}
	var order []string
	for _, r := range m.Rules {
		for _, s := range r.Sources {
			mf := lookup(idx, s.Name)
			if mf == nil || !compatible(mf.GetType(), r.Family.kind, s.HistogramSum) {
				continue
			}
			used := false
			for _, met := range mf.GetMetric() {
				labels := labelMap(met)
				if !matches(labels, s.Match) {
					continue
				}
				smp := newSample(r.Family, nil, mf.GetType(), met, s)
				if s.ValueLabel != "" && !labelValue(smp, labels[s.ValueLabel]) {
					continue
				}
				used = true
				vals := seriesLabels(m, r.Family, s, labels, fallbackModel)
				smp.labels = vals
				key := r.Family.name + "\xff" + strings.Join(vals, "\xff")
				prev, ok := agg[key]
				if !ok {
					agg[key] = smp
					order = append(order, key)
					continue
				}
				if !prev.merge(smp) {
					dropped++
				}
			}
			if used && !r.All {
				break
			}
		}
	}
	sort.Strings(order)
	out = make([]sample, 0, len(order))
	for _, k := range order {
		out = append(out, *agg[k])
	}
	return out, dropped
}

// indexFamilies adds alias-prefixed families under the canonical prefix
// unless the canonical family exists too.
func indexFamilies(fams map[string]*dto.MetricFamily, aliases map[string]string) map[string]*dto.MetricFamily {
	if len(aliases) == 0 {
		return fams
	}
	idx := make(map[string]*dto.MetricFamily, len(fams))
	for name, mf := range fams {
		idx[name] = mf
	}
	for name, mf := range fams {
		for alias, canon := range aliases {
			if c := canon + strings.TrimPrefix(name, alias); strings.HasPrefix(name, alias) {
				if _, exists := fams[c]; !exists {
					idx[c] = mf
				}
			}
		}
	}
	return idx
}

// lookup finds a family by name; counters also match with the _total
// suffix added or removed, since exporters disagree on the family name.
func lookup(idx map[string]*dto.MetricFamily, name string) *dto.MetricFamily {
	if mf := idx[name]; mf != nil {
		return mf
	}
	alt := name + "_total"
	if trimmed, ok := strings.CutSuffix(name, "_total"); ok {
		alt = trimmed
	}
	if mf := idx[alt]; mf != nil && (mf.GetType() == dto.MetricType_COUNTER || mf.GetType() == dto.MetricType_UNTYPED) {
		return mf
	}
	return nil
}

// compatible refuses type mismatches: a gauge is never re-exported as a
// counter (an old SGLang gauge with a counter's meaning stays out).
func compatible(t dto.MetricType, k kind, histSum bool) bool {
	switch {
	case histSum:
		return k == kindCounter && t == dto.MetricType_HISTOGRAM
	case k == kindHistogram:
		return t == dto.MetricType_HISTOGRAM
	case k == kindCounter:
		return t == dto.MetricType_COUNTER || t == dto.MetricType_UNTYPED
	default:
		return t == dto.MetricType_GAUGE || t == dto.MetricType_UNTYPED
	}
}

func labelMap(met *dto.Metric) map[string]string {
	l := make(map[string]string, len(met.GetLabel()))
	for _, lp := range met.GetLabel() {
		l[lp.GetName()] = lp.GetValue()
	}
	return l
}

func matches(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// seriesLabels returns model, engine and the family's extra label values.
func seriesLabels(m *Mapping, f *family, s Source, labels map[string]string, fallbackModel string) []string {
	model := ""
	for _, l := range m.ModelLabels {
		if v := labels[l]; v != "" {
			model = v
			break
		}
	}
	if model == "" {
		model = fallbackModel
	}
	engine := ""
	if m.Engine != nil {
		engine = m.Engine(labels)
	}
	vals := append(make([]string, 0, 2+len(f.extra)), model, engine)
	for _, e := range f.extra {
		v, found := "", false
		for _, src := range s.Labels[e] {
			if v, found = labels[src]; found {
				break
			}
		}
		if !found {
			v = s.Const[e]
		}
		vals = append(vals, v)
	}
	return vals
}

func newSample(f *family, vals []string, t dto.MetricType, met *dto.Metric, s Source) *sample {
	scale := s.Scale
	if scale == 0 {
		scale = 1
	}
	smp := &sample{fam: f, labels: vals}
	switch {
	case f.kind == kindHistogram:
		smp.hist = histFromDTO(met.GetHistogram(), scale)
	case s.HistogramSum:
		smp.value = met.GetHistogram().GetSampleSum() * scale
	case t == dto.MetricType_COUNTER:
		smp.value = met.GetCounter().GetValue() * scale
	case t == dto.MetricType_GAUGE:
		smp.value = met.GetGauge().GetValue() * scale
	default:
		smp.value = met.GetUntyped().GetValue() * scale
	}
	return smp
}

// merge folds o into s: sum, or max for ratios.
func (s *sample) merge(o *sample) bool {
	if s.hist != nil {
		return s.hist.add(o.hist)
	}
	if s.fam.useMax {
		s.value = max(s.value, o.value)
	} else {
		s.value += o.value
	}
	return true
}
