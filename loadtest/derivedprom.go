package loadtest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// PromQuerier is the part of client_golang's v1.API the derivation uses.
type PromQuerier interface {
	Query(ctx context.Context, query string, ts time.Time, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error)
	QueryRange(ctx context.Context, query string, r v1.Range, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error)
}

// DeriveOptions say which series and window a workload comes from.
type DeriveOptions struct {
	URL      string // the Prometheus, without credentials (for the origin)
	Selector string // label matchers, e.g. {target="vllm-a"}; "" for all
	Window   time.Duration
	End      time.Time
}

// The daemon's re-exported series the derivation reads (collector/).
const (
	promPromptTokens = "llm_prober_server_request_prompt_tokens"
	promGenTokens    = "llm_prober_server_request_generation_tokens"
	promFinished     = "llm_prober_server_requests_finished_total"
	promPrefixHits   = "llm_prober_server_prefix_cache_hits_total"
	promPrefixQuery  = "llm_prober_server_prefix_cache_queries_total"
)

// maxRangePoints keeps a range query under Prometheus's 11,000 points.
const maxRangePoints = 10000

// DeriveWorkload synthesises a workload from the daemon's re-exported
// series over the window: length distributions from the prompt and
// generation histograms, the mean rate and a burstiness fit from the
// finished-request counter, and a shared prefix from the prefix-cache
// counters.
func DeriveWorkload(ctx context.Context, q PromQuerier, o DeriveOptions) (*DerivedWorkload, error) {
	sel := strings.TrimSpace(o.Selector)
	if sel != "" && (!strings.HasPrefix(sel, "{") || !strings.HasSuffix(sel, "}")) {
		return nil, fmt.Errorf("selector %q is not a set of label matchers such as {target=\"vllm-a\"}", o.Selector)
	}
	if o.Window < time.Minute {
		return nil, fmt.Errorf("window %s is shorter than a minute", o.Window)
	}
	if o.End.IsZero() {
		o.End = time.Now()
	}
	w := &DerivedWorkload{Version: WorkloadFileVersion, Origin: WorkloadOrigin{Source: "prometheus", URL: o.URL,
		Selector: sel, Window: model.Duration(o.Window).String(), Start: o.End.Add(-o.Window), End: o.End}}
	where := fmt.Sprintf("selector %q, window %s", sel, w.Origin.Window)
	in, inTargets, err := queryLengths(ctx, q, promPromptTokens, sel, o)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", promPromptTokens, where, err)
	}
	out, outTargets, err := queryLengths(ctx, q, promGenTokens, sel, o)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", promGenTokens, where, err)
	}
	w.Input, w.Output = *in, *out
	w.Origin.Requests = in.Requests
	if in.Requests < 1000 {
		w.Notes = append(w.Notes, fmt.Sprintf("only %.0f requests: the length tails (p99) rest on a few of them", in.Requests))
	}
	targets := append(inTargets, outTargets...)
	counts, step, first, last, finTargets, err := queryCounts(ctx, q, sel, o)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", promFinished, where, err)
	}
	targets = append(targets, finTargets...)
	slices.Sort(targets)
	w.Origin.Targets = slices.Compact(targets)
	if len(w.Origin.Targets) > 1 {
		w.Notes = append(w.Notes, fmt.Sprintf("%d targets matched: the rate is their sum, the lengths their mixture; select one replica to bench one", len(w.Origin.Targets)))
	}
	if !first.IsZero() {
		w.Origin.HistorySec = last.Sub(first).Seconds()
		if hist := last.Sub(first); hist < o.Window*9/10 {
			w.Notes = append(w.Notes, fmt.Sprintf("the window is %s but the counter has %s of history", w.Origin.Window, hist.Round(time.Minute)))
		}
	}
	var total float64
	var seen int
	for _, c := range counts {
		if finite(c) {
			total += c
			seen++
		}
	}
	if seen > 0 {
		w.RequestRate = total / (float64(seen) * step.Seconds())
	} else {
		w.Notes = append(w.Notes, "no "+promFinished+" samples: no mean rate")
	}
	w.Burstiness = FitBurstiness(counts, step.Seconds())
	w.PrefixCacheHitRate, err = queryHitRate(ctx, q, sel, o)
	if err != nil {
		return nil, fmt.Errorf("prefix cache (%s): %w", where, err)
	}
	if w.PrefixCacheHitRate != nil {
		var note string
		w.PrefixTokens, note = PrefixForHitRate(*w.PrefixCacheHitRate, &w.Input)
		if note != "" {
			w.Notes = append(w.Notes, note)
		}
	}
	return w, nil
}

// queryLengths reads one length histogram's increase per series.
func queryLengths(ctx context.Context, q PromQuerier, name, sel string, o DeriveOptions) (*LengthDist, []string, error) {
	rng := "[" + model.Duration(o.Window).String() + "]"
	buckets, err := queryVector(ctx, q, "increase("+name+"_bucket"+sel+rng+")", o.End)
	if err != nil {
		return nil, nil, err
	}
	if len(buckets) == 0 {
		return nil, nil, fmt.Errorf("no series in the window: is server_metrics enabled for the target, and does its backend export the histogram?")
	}
	sums, err := queryVector(ctx, q, "increase("+name+"_sum"+sel+rng+")", o.End)
	if err != nil {
		return nil, nil, err
	}
	bySeries := map[model.Fingerprint]*HistSeries{}
	var targets []string
	for _, s := range buckets {
		le, err := parseLe(s.Metric[model.BucketLabel])
		if err != nil {
			continue // not a bucket: a malformed series is skipped, not fatal
		}
		m := s.Metric.Clone()
		delete(m, model.BucketLabel)
		fp := m.Fingerprint()
		hs := bySeries[fp]
		if hs == nil {
			hs = &HistSeries{Sum: math.NaN()}
			bySeries[fp] = hs
			if t := string(m["target"]); t != "" {
				targets = append(targets, t)
			}
		}
		hs.Bounds = append(hs.Bounds, le)
		hs.Counts = append(hs.Counts, float64(s.Value))
	}
	for _, s := range sums {
		if hs := bySeries[s.Metric.Fingerprint()]; hs != nil {
			hs.Sum = float64(s.Value)
		}
	}
	series := make([]HistSeries, 0, len(bySeries))
	for _, hs := range bySeries {
		series = append(series, *hs)
	}
	d, err := NewLengthDist(series)
	if err != nil || d.Requests < MinRequests {
		n := 0.0
		if d != nil {
			n = d.Requests
		}
		return nil, nil, fmt.Errorf("%w: %.0f requests in the window (at least %d needed); widen --window or check --selector", ErrNoTraffic, n, MinRequests)
	}
	return d, targets, nil
}

func parseLe(s model.LabelValue) (float64, error) {
	return strconv.ParseFloat(string(s), 64)
}

// queryCounts reads the finished-request counters at every step of the
// window and turns them into requests per step, per series then summed:
// exact counts between scrapes (increase() over a short range would
// scale them by its extrapolation, and so the dispersion). A counter that
// falls restarted from zero. NaN marks a step no series covers.
func queryCounts(ctx context.Context, q PromQuerier, sel string, o DeriveOptions) ([]float64, time.Duration, time.Time, time.Time, []string, error) {
	step := time.Minute
	if n := o.Window / step; n > maxRangePoints {
		step = (o.Window/maxRangePoints + time.Minute - 1).Truncate(time.Minute)
	}
	start := o.End.Add(-o.Window).Truncate(step)
	v, _, _, err := q.QueryRange(ctx, promFinished+sel, v1.Range{Start: start, End: o.End, Step: step})
	if err != nil {
		return nil, 0, time.Time{}, time.Time{}, nil, err
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return nil, 0, time.Time{}, time.Time{}, nil, fmt.Errorf("range query returned %s, not a matrix", v.Type())
	}
	n := int(o.End.Sub(start)/step) + 1
	counts := make([]float64, n)
	covered := make([]bool, n)
	var first, last time.Time
	var targets []string
	for _, s := range m {
		if t := string(s.Metric["target"]); t != "" {
			targets = append(targets, t)
		}
		prevIdx, prev := -2, 0.0
		for _, p := range s.Values {
			ts := p.Timestamp.Time()
			i := int(ts.Sub(start) / step)
			if i < 0 || i >= n {
				continue
			}
			if first.IsZero() || ts.Before(first) {
				first = ts
			}
			if ts.After(last) {
				last = ts
			}
			val := float64(p.Value)
			if prevIdx == i-1 {
				d := val - prev
				if d < 0 {
					d = val // a restart: the counter began again at 0
				}
				counts[i] += d
				covered[i] = true
			}
			prevIdx, prev = i, val
		}
	}
	for i := range counts {
		if !covered[i] {
			counts[i] = math.NaN()
		}
	}
	return counts, step, first, last, targets, nil
}

// queryHitRate is hits ÷ queries over the window; nil without counters.
func queryHitRate(ctx context.Context, q PromQuerier, sel string, o DeriveOptions) (*float64, error) {
	rng := "[" + model.Duration(o.Window).String() + "]"
	hits, err := queryVector(ctx, q, "sum(increase("+promPrefixHits+sel+rng+"))", o.End)
	if err != nil {
		return nil, err
	}
	queries, err := queryVector(ctx, q, "sum(increase("+promPrefixQuery+sel+rng+"))", o.End)
	if err != nil {
		return nil, err
	}
	if len(hits) == 0 || len(queries) == 0 || !(queries[0].Value > 0) {
		return nil, nil
	}
	h := math.Min(math.Max(float64(hits[0].Value/queries[0].Value), 0), 1)
	return &h, nil
}

func queryVector(ctx context.Context, q PromQuerier, query string, at time.Time) (model.Vector, error) {
	v, _, _, err := q.Query(ctx, query, at)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", query, err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("query %s returned %s, not a vector", query, v.Type())
	}
	return vec, nil
}
