package otelmetrics

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// serverHistograms is the push's Producer of the server half: at each
// push it gathers the collector's re-exported histograms (the servers'
// own, bounds as scraped) and hands those whose meaning matches a GenAI
// server instrument over as cumulative OTLP histograms. It records
// nothing itself: the servers counted.
type serverHistograms struct {
	mu      sync.Mutex
	g       prometheus.Gatherer
	targets map[string]Endpoint // server.address/port and provider by target
	// starts are the series' start times: first seen, or when the count
	// fell (the server restarted). Pruned to the series of the last push.
	starts map[string]seriesStart
	now    func() time.Time // time.Now; tests set it
}

type seriesStart struct {
	at    time.Time
	count uint64
}

func (s *serverHistograms) setTargets(t map[string]Endpoint) {
	s.mu.Lock()
	s.targets = t
	s.mu.Unlock()
}

func (s *serverHistograms) setGatherer(g prometheus.Gatherer) {
	s.mu.Lock()
	s.g = g
	s.mu.Unlock()
}

var serverScope = instrumentation.Scope{Name: "github.com/llm-prober/llm-prober/otelmetrics/server", SchemaURL: SchemaURL}

// Produce implements sdkmetric.Producer.
func (s *serverHistograms) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.g == nil {
		return nil, nil
	}
	fams, err := s.g.Gather()
	if err != nil && len(fams) == 0 {
		return nil, err
	}
	now := time.Now()
	if s.now != nil {
		now = s.now()
	}
	seen := map[string]bool{}
	var out []metricdata.Metrics
	for _, f := range fams {
		tr, ok := serverFamilies[f.GetName()]
		if !ok || f.GetType() != dto.MetricType_HISTOGRAM {
			continue
		}
		h := metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if slices.Contains(tr.not, labels["backend"]) {
				continue
			}
			dp, ok := point(m.GetHistogram())
			if !ok {
				continue
			}
			id := f.GetName() + "\xff" + seriesID(m)
			seen[id] = true
			st, known := s.starts[id]
			if !known || dp.Count < st.count {
				st.at = now
				if ct := m.GetHistogram().GetCreatedTimestamp(); ct != nil && ct.IsValid() {
					st.at = ct.AsTime()
				}
			}
			st.count = dp.Count
			s.starts[id] = st
			dp.StartTime, dp.Time = st.at, now
			dp.Attributes = s.attributes(labels)
			h.DataPoints = append(h.DataPoints, dp)
		}
		if len(h.DataPoints) > 0 {
			out = append(out, metricdata.Metrics{Name: tr.inst.name, Description: tr.inst.desc, Unit: tr.inst.unit, Data: h})
		}
	}
	for id := range s.starts {
		if !seen[id] {
			delete(s.starts, id)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return []metricdata.ScopeMetrics{{Scope: serverScope, Metrics: out}}, nil
}

// attributes of a re-exported series (labels target, backend, model,
// engine). gen_ai.operation.name is left out: the servers do not split
// their histograms by operation, and guessing one would be a lie.
func (s *serverHistograms) attributes(labels map[string]string) attribute.Set {
	kv := []attribute.KeyValue{keyProvider.String(Provider(labels["backend"])), keyModel.String(labels["model"]),
		keyTarget.String(labels["target"])}
	if e := labels["engine"]; e != "" {
		kv = append(kv, keyEngine.String(e))
	}
	if t, ok := s.targets[labels["target"]]; ok && t.Address != "" {
		kv = append(kv, keyAddress.String(t.Address), keyPort.Int(t.Port))
	}
	return attribute.NewSet(kv...)
}

// point converts a classic histogram: cumulative bucket counts become
// per-bucket counts, the +Inf bucket the last. A histogram without
// buckets, or whose counts fall, is not one to translate.
func point(h *dto.Histogram) (metricdata.HistogramDataPoint[float64], bool) {
	var dp metricdata.HistogramDataPoint[float64]
	if h == nil || len(h.GetBucket()) == 0 || math.IsNaN(h.GetSampleSum()) || math.IsInf(h.GetSampleSum(), 0) {
		return dp, false
	}
	dp.Count, dp.Sum = h.GetSampleCount(), h.GetSampleSum()
	var prev uint64
	for _, b := range h.GetBucket() {
		c := b.GetCumulativeCount()
		if c < prev || c > dp.Count {
			return dp, false
		}
		if math.IsInf(b.GetUpperBound(), +1) {
			break
		}
		dp.Bounds = append(dp.Bounds, b.GetUpperBound())
		dp.BucketCounts = append(dp.BucketCounts, c-prev)
		prev = c
	}
	dp.BucketCounts = append(dp.BucketCounts, dp.Count-prev)
	return dp, true
}

func seriesID(m *dto.Metric) string {
	var b strings.Builder
	for _, lp := range m.GetLabel() {
		b.WriteString(lp.GetName())
		b.WriteByte(0)
		b.WriteString(lp.GetValue())
		b.WriteByte(0)
	}
	return b.String()
}
