package workload

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	Timeout  time.Duration // of each query (0: the context's)
}

// The daemon's re-exported series the derivation reads (collector/).
const (
	promPromptTokens = "llm_prober_server_request_prompt_tokens"
	promGenTokens    = "llm_prober_server_request_generation_tokens"
	promFinished     = "llm_prober_server_requests_finished_total"
	promPrefixHits   = "llm_prober_server_prefix_cache_hits_total"
	promPrefixQuery  = "llm_prober_server_prefix_cache_queries_total"
	promE2E          = "llm_prober_server_e2e_request_latency_seconds"
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
		if w.RequestRate > MaxRate {
			return nil, fmt.Errorf("%s (%s): a mean rate of %g req/s is beyond any server (at most %g)", promFinished, where, w.RequestRate, MaxRate)
		}
		if w.RequestRate < MinRate {
			w.Notes = append(w.Notes, fmt.Sprintf("a mean rate of %g req/s is below %g: no mean rate", w.RequestRate, MinRate))
			w.RequestRate = 0
		}
	} else {
		w.Notes = append(w.Notes, "no "+promFinished+" samples: no mean rate")
	}
	k, err := scrapeBlock(ctx, q, sel, o, step, last.Sub(first))
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", promFinished, where, err)
	}
	svc, err := queryMeanService(ctx, q, sel, o)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", promE2E, where, err)
	}
	ks := serviceBlock(svc, step, len(counts), k)
	w.Burstiness = FitBurstiness(blockCounts(counts, ks), float64(ks)*step.Seconds())
	if ks > k {
		span := time.Duration(ks) * step
		w.Burstiness.Note = strings.TrimPrefix(w.Burstiness.Note+fmt.Sprintf("; counted in %s intervals, %.0f× the mean request duration (%.1fs): finished requests trail arrivals by it",
			span, span.Seconds()/svc, svc), "; ")
		if span.Seconds() < serviceSpan*svc {
			w.Burstiness.Note += fmt.Sprintf(" (%d× would leave fewer than %d intervals: the fit leans towards 1)", serviceSpan, minFitBlocks)
		}
	}
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

// served counts each server once, as capacity/promsource does: within a
// prober's view (cluster, job, instance) engines, backends and reasons
// are summed; HA probers re-export the same server, so one view is kept
// per target.
func served(by, inner string) string {
	return "max by (target" + by + ") (sum by (target, cluster, job, instance" + by + ") (" + inner + "))"
}

// queryLengths reads one length histogram's increase, a series per target
// (targets with different bounds stay apart: their mixture is exact).
func queryLengths(ctx context.Context, q PromQuerier, name, sel string, o DeriveOptions) (*LengthDist, []string, error) {
	rng := "[" + model.Duration(o.Window).String() + "]"
	buckets, err := queryVector(ctx, q, served(", le", "increase("+name+"_bucket"+sel+rng+")"), o)
	if err != nil {
		return nil, nil, err
	}
	if len(buckets) == 0 {
		return nil, nil, fmt.Errorf("no series in the window: is server_metrics enabled for the target, and does its backend export the histogram?")
	}
	sums, err := queryVector(ctx, q, served("", "increase("+name+"_sum"+sel+rng+")"), o)
	if err != nil {
		return nil, nil, err
	}
	byTarget := map[model.LabelValue]*HistSeries{}
	var targets []string
	for _, s := range buckets {
		le, err := parseLe(s.Metric[model.BucketLabel])
		if err != nil {
			continue // not a bucket: a malformed series is skipped, not fatal
		}
		t := s.Metric["target"]
		hs := byTarget[t]
		if hs == nil {
			hs = &HistSeries{Sum: math.NaN()}
			byTarget[t] = hs
			if t != "" {
				targets = append(targets, string(t))
			}
		}
		hs.Bounds = append(hs.Bounds, le)
		hs.Counts = append(hs.Counts, float64(s.Value))
	}
	for _, s := range sums {
		if hs := byTarget[s.Metric["target"]]; hs != nil {
			hs.Sum = float64(s.Value)
		}
	}
	series := make([]HistSeries, 0, len(byTarget))
	for _, t := range slices.Sorted(maps.Keys(byTarget)) {
		series = append(series, *byTarget[t])
	}
	d, err := NewLengthDist(series)
	if err != nil && !errors.Is(err, errNoRequests) {
		return nil, nil, err
	}
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
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	v, _, _, err := q.QueryRange(ctx, promFinished+sel, v1.Range{Start: start, End: o.End, Step: step})
	if err != nil {
		return nil, 0, time.Time{}, time.Time{}, nil, err
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return nil, 0, time.Time{}, time.Time{}, nil, fmt.Errorf("range query returned %s, not a matrix", v.Type())
	}
	n := int(o.End.Sub(start)/step) + 1
	type view struct{ target, cluster, job, instance model.LabelValue }
	views := map[view][]float64{}
	covered := make([]bool, n)
	var first, last time.Time
	var targets []string
	for _, s := range m {
		k := view{s.Metric["target"], s.Metric["cluster"], s.Metric["job"], s.Metric["instance"]}
		vc := views[k]
		if vc == nil {
			vc = make([]float64, n)
			views[k] = vc
			if k.target != "" {
				targets = append(targets, string(k.target))
			}
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
				vc[i] += d
				covered[i] = true
			}
			prevIdx, prev = i, val
		}
	}
	// One view per target (the largest: copies differ only by scrape
	// timing), targets summed.
	perTarget := map[model.LabelValue][]float64{}
	for k, vc := range views {
		tc := perTarget[k.target]
		if tc == nil {
			tc = make([]float64, n)
			perTarget[k.target] = tc
		}
		for i, c := range vc {
			tc[i] = max(tc[i], c)
		}
	}
	counts := make([]float64, n)
	for _, tc := range perTarget {
		for i, c := range tc {
			counts[i] += c
		}
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)
	for i := range counts {
		if !covered[i] {
			counts[i] = math.NaN()
		}
	}
	return counts, step, first, last, targets, nil
}

// scrapeBlock is how many steps a counted interval must span to count
// whole scrape intervals: a counter scraped every 2m read at 1m steps
// alternates 0 and the 2m count, which a fit would read as wild
// burstiness. Blocks of k steps, k the smallest that spans a whole number
// of scrape intervals (r steps each), count whole intervals each.
func scrapeBlock(ctx context.Context, q PromQuerier, sel string, o DeriveOptions, step, span time.Duration) (int, error) {
	rng := "[" + model.Duration(o.Window).String() + "]"
	v, err := queryVector(ctx, q, "max(count_over_time("+promFinished+sel+rng+"))", o)
	// NaN or ±Inf (a broken answer) would make the loop below run from
	// int(NaN) for ever: no block then.
	if err != nil || len(v) == 0 || !(v[0].Value >= 2) || !finite(float64(v[0].Value)) || span <= 0 {
		return 1, err
	}
	r := float64(span) / float64(v[0].Value-1) / float64(step)
	if r <= 1.05 {
		return 1, nil
	}
	for k := int(math.Ceil(r - 0.05)); k <= 10*int(math.Ceil(r)); k++ {
		if x := float64(k) / r; math.Abs(x-math.Round(x)) < 0.05*math.Round(x) {
			return k, nil
		}
	}
	return int(math.Ceil(2 * r)), nil
}

// serviceSpan is how many mean request durations a counted interval
// spans at least. The fit counts finished requests, which trail arrivals
// by their duration: over an interval not much longer, that delay smooths
// bursts (gamma 0.3 arrivals with 60 s exponential durations fit as 0.72
// per minute, 0.34 per 30 minutes; see TestFitBurstinessDepartures).
const serviceSpan = 30

// minFitBlocks is the fewest intervals longer blocks may leave.
const minFitBlocks = 100

// serviceBlock is the block (in steps) the fit counts in: at least k (the
// scrape's), at least serviceSpan mean durations svc (seconds, 0:
// unknown), a multiple of k, and at most what leaves minFitBlocks.
func serviceBlock(svc float64, step time.Duration, n, k int) int {
	if !(svc > 0) || math.IsInf(svc, 0) {
		return k
	}
	want := int(math.Ceil(serviceSpan * svc / step.Seconds()))
	want = min(want, n/minFitBlocks)
	if want <= k {
		return k
	}
	return (want + k - 1) / k * k
}

// queryMeanService is the mean server-side request duration over the
// window (seconds; 0 without the histogram).
func queryMeanService(ctx context.Context, q PromQuerier, sel string, o DeriveOptions) (float64, error) {
	rng := "[" + model.Duration(o.Window).String() + "]"
	sum, err := queryVector(ctx, q, "sum("+served("", "increase("+promE2E+"_sum"+sel+rng+")")+")", o)
	if err != nil {
		return 0, err
	}
	count, err := queryVector(ctx, q, "sum("+served("", "increase("+promE2E+"_count"+sel+rng+")")+")", o)
	if err != nil || len(sum) == 0 || len(count) == 0 || !(count[0].Value > 0) {
		return 0, err
	}
	return float64(sum[0].Value / count[0].Value), nil
}

// blockCounts sums counts in blocks of k (NaN where any is missing).
func blockCounts(counts []float64, k int) []float64 {
	if k <= 1 {
		return counts
	}
	out := make([]float64, 0, len(counts)/k)
	for i := 0; i+k <= len(counts); i += k {
		var s float64
		for _, c := range counts[i : i+k] {
			s += c
		}
		out = append(out, s)
	}
	return out
}

// queryHitRate is hits ÷ queries over the window; nil without counters.
func queryHitRate(ctx context.Context, q PromQuerier, sel string, o DeriveOptions) (*float64, error) {
	rng := "[" + model.Duration(o.Window).String() + "]"
	hits, err := queryVector(ctx, q, "sum("+served("", "increase("+promPrefixHits+sel+rng+")")+")", o)
	if err != nil {
		return nil, err
	}
	queries, err := queryVector(ctx, q, "sum("+served("", "increase("+promPrefixQuery+sel+rng+")")+")", o)
	if err != nil {
		return nil, err
	}
	if len(hits) == 0 || len(queries) == 0 || !(queries[0].Value > 0) {
		return nil, nil
	}
	h := math.Min(math.Max(float64(hits[0].Value/queries[0].Value), 0), 1)
	return &h, nil
}

func queryVector(ctx context.Context, q PromQuerier, query string, o DeriveOptions) (model.Vector, error) {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	v, _, _, err := q.Query(ctx, query, o.End)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", query, err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("query %s returned %s, not a vector", query, v.Type())
	}
	return vec, nil
}
