package promsource

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/prometheus/common/model"
)

// The re-exported per-request length histograms (classic: _bucket with
// le, _sum, _count).
const (
	PromptTokens     = "llm_prober_server_request_prompt_tokens"
	GenerationTokens = "llm_prober_server_request_generation_tokens"
)

// Histogram is a length histogram's increase over the window, all
// selected targets together (each server counted once).
type Histogram struct {
	Metric  string
	Buckets []Bucket // cumulative, by upper bound; the last is +Inf
	Sum     float64
	Count   float64
}

// Bucket is a cumulative count of requests with at most UpperBound tokens.
type Bucket struct {
	UpperBound float64
	Count      float64
}

// Mean is Sum / Count; NaN without requests.
func (h *Histogram) Mean() float64 {
	if h == nil || h.Count <= 0 {
		return math.NaN()
	}
	return h.Sum / h.Count
}

// Lengths reads metric's histogram (PromptTokens, GenerationTokens) as
// increased over the window. A backend that exports no such histogram,
// or no request in the window, is ErrNoData.
func (s *Source) Lengths(ctx context.Context, metric string) (*Histogram, error) {
	w := model.Duration(s.cfg.Window).String()
	inc := func(suffix, by string) string {
		return "sum by (" + by + ") (max by (target" + comma(by) + ") (sum by (target, cluster, job, instance" + comma(by) +
			") (increase(" + s.sel(metric+suffix) + "[" + w + "]))))"
	}
	h := &Histogram{Metric: metric}
	bv, err := s.query(ctx, inc("_bucket", "le"))
	if err != nil {
		return nil, err
	}
	for _, smp := range bv {
		ub, err := strconv.ParseFloat(string(smp.Metric["le"]), 64)
		if err != nil {
			continue
		}
		h.Buckets = append(h.Buckets, Bucket{UpperBound: ub, Count: float64(smp.Value)})
	}
	sort.Slice(h.Buckets, func(i, j int) bool { return h.Buckets[i].UpperBound < h.Buckets[j].UpperBound })
	for _, part := range []struct {
		suffix string
		to     *float64
	}{{"_sum", &h.Sum}, {"_count", &h.Count}} {
		v, err := s.query(ctx, "sum(max by (target) (sum by (target, cluster, job, instance) (increase("+s.sel(metric+part.suffix)+"["+w+"]))))")
		if err != nil {
			return nil, err
		}
		if len(v) > 0 {
			*part.to = float64(v[0].Value)
		}
	}
	if h.Count <= 0 || len(h.Buckets) == 0 {
		return nil, fmt.Errorf("%w: no %s requests for %s in the %s window at %s", ErrNoData, metric, s.Selector(), w, s.url)
	}
	return h, nil
}

// Quantile is Prometheus's histogram_quantile of the window's
// histogram: the same interpolation a dashboard shows.
func (s *Source) Quantile(ctx context.Context, metric string, q float64) (float64, error) {
	w := model.Duration(s.cfg.Window).String()
	v, err := s.query(ctx, "histogram_quantile("+strconv.FormatFloat(q, 'g', -1, 64)+", sum by (le) (max by (target, le) (sum by (target, le, cluster, job, instance) (increase("+
		s.sel(metric+"_bucket")+"["+w+"])))))")
	if err != nil {
		return math.NaN(), err
	}
	if len(v) == 0 {
		return math.NaN(), nil
	}
	return float64(v[0].Value), nil
}

func comma(by string) string {
	if by == "" {
		return ""
	}
	return ", " + by
}
