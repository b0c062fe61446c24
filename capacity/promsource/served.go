package promsource

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/prometheus/common/model"
)

// maxPoints keeps a range query under Prometheus's 11,000 points a series.
const maxPoints = 10000

// Rates is the served request rate of the selected targets over the
// window, summed over targets at each step.
type Rates struct {
	Points       []Point
	Targets      []string // the targets that had data, sorted
	Probers      int      // most probers re-exporting one target (copies counted once)
	Step         time.Duration
	RateInterval time.Duration
	Window       time.Duration
	End          time.Time
}

// Point is one step: the rate over RateInterval ending at T.
type Point struct {
	T time.Time
	V float64
}

// served counts each server once: within each prober's view (cluster,
// job, instance) the engines, backends and finish reasons are summed;
// probers in several locations or HA replicas re-export the same server,
// so one view is kept per target (the largest: they differ only by
// scrape timing); the targets are summed by the caller.
func served(inner string) string {
	return "max by (target) (sum by (target, cluster, job, instance) (" + inner + "))"
}

// Step is the range-query step for the window: a fifth of the rate
// interval, coarser where the window would need more than maxPoints.
func (s *Source) Step() time.Duration {
	step := max(s.cfg.RateInterval/5, time.Second, s.cfg.Window/maxPoints)
	return (step + time.Second - 1).Truncate(time.Second) // whole seconds, rounded up
}

// ServedRates reads rate(llm_prober_server_requests_finished_total[rate
// interval]) over the window. rate() takes counter resets (a restarted
// server) in its stride. No matching series is ErrNoData.
func (s *Source) ServedRates(ctx context.Context) (*Rates, error) {
	step := s.Step()
	ri := model.Duration(s.cfg.RateInterval).String()
	m, err := s.queryRange(ctx, served("rate("+s.sel("llm_prober_server_requests_finished_total")+"["+ri+"])"), step)
	if err != nil {
		return nil, err
	}
	r := &Rates{Step: step, RateInterval: s.cfg.RateInterval, Window: s.cfg.Window, End: s.End()}
	sum := map[model.Time]float64{}
	for _, ss := range m {
		if len(ss.Values) == 0 {
			continue
		}
		r.Targets = append(r.Targets, string(ss.Metric["target"]))
		for _, p := range ss.Values {
			if v := float64(p.Value); !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum[p.Timestamp] += v
			}
		}
	}
	if len(sum) == 0 {
		if err := s.windowTooShort(ctx); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: no llm_prober_server_requests_finished_total series match %s in the %s before %s at %s (is server_metrics enabled for the target, and is llm-prober scraped by this Prometheus?)",
			ErrNoData, s.Selector(), model.Duration(s.cfg.Window), r.End.UTC().Format(time.RFC3339), s.url)
	}
	for t, v := range sum {
		r.Points = append(r.Points, Point{T: t.Time(), V: v})
	}
	sort.Slice(r.Points, func(i, j int) bool { return r.Points[i].T.Before(r.Points[j].T) })
	sort.Strings(r.Targets)
	r.Probers, err = s.probers(ctx)
	return r, err
}

// probers is the most probers that re-exported one target in the window.
func (s *Source) probers(ctx context.Context) (int, error) {
	w := model.Duration(s.cfg.Window).String()
	v, err := s.query(ctx, "max(count by (target) (count by (target, cluster, job, instance) (last_over_time("+
		s.sel("llm_prober_server_requests_finished_total")+"["+w+"]))))")
	if err != nil || len(v) == 0 {
		return 0, err
	}
	return int(v[0].Value), nil
}

// History is how much of the window had data: from the first rate to the
// last, plus the step before the first (a rate needs two samples, so the
// first comes a scrape or so after the data begins).
func (r *Rates) History() time.Duration {
	if len(r.Points) == 0 {
		return 0
	}
	return min(r.Points[len(r.Points)-1].T.Sub(r.Points[0].T)+r.Step, r.Window)
}

// Partial reports whether history covers less than 95 % of the window.
func (r *Rates) Partial() bool { return r.History() < r.Window*95/100 }

// Max is the highest rate and when (the end of its rate interval).
func (r *Rates) Max() Point {
	var best Point
	for _, p := range r.Points {
		if p.V > best.V || best.T.IsZero() {
			best = p
		}
	}
	return best
}

// Mean is the mean of the rates: the average served rate over the
// history.
func (r *Rates) Mean() float64 {
	if len(r.Points) == 0 {
		return 0
	}
	var sum float64
	for _, p := range r.Points {
		sum += p.V
	}
	return sum / float64(len(r.Points))
}

// Quantile is the q-quantile (0..1) of the rates, nearest rank.
func (r *Rates) Quantile(q float64) float64 {
	if len(r.Points) == 0 {
		return 0
	}
	vs := make([]float64, len(r.Points))
	for i, p := range r.Points {
		vs[i] = p.V
	}
	slices.Sort(vs)
	i := int(math.Ceil(q*float64(len(vs)))) - 1
	return vs[min(max(i, 0), len(vs)-1)]
}

// HourPeak is one hour of the day's peak rate, averaged over the days
// that had data in that hour.
type HourPeak struct {
	Hour     int     // 0..23 in the location asked for
	MeanPeak float64 // mean over days of the day's highest rate in this hour
	MaxPeak  float64
	Days     int
}

// ByHour is the peak rate of each hour of the day in loc, averaged over
// days: the typical day's shape. A rate counts in the hour of the middle
// of its interval (a 5-minute rate at 15:02 is mostly 14:59).
func (r *Rates) ByHour(loc *time.Location) []HourPeak {
	type key struct {
		day  string
		hour int
	}
	peaks := map[key]float64{}
	for _, p := range r.Points {
		t := p.T.Add(-r.RateInterval / 2).In(loc)
		k := key{t.Format("2006-01-02"), t.Hour()}
		if v, ok := peaks[k]; !ok || p.V > v {
			peaks[k] = p.V
		}
	}
	out := make([]HourPeak, 24)
	for h := range out {
		out[h].Hour = h
	}
	for k, v := range peaks {
		h := &out[k.hour]
		h.MeanPeak += v
		h.MaxPeak = max(h.MaxPeak, v)
		h.Days++
	}
	for h := range out {
		if out[h].Days > 0 {
			out[h].MeanPeak /= float64(out[h].Days)
		}
	}
	return out
}

// BusiestHour is the hour of the day whose mean daily peak is highest.
func BusiestHour(hours []HourPeak) HourPeak {
	var best HourPeak
	for _, h := range hours {
		if h.Days > 0 && (best.Days == 0 || h.MeanPeak > best.MeanPeak) {
			best = h
		}
	}
	return best
}

// windowTooShort names the cause when the series exist but no rate came
// back: --rate-interval holds fewer than two of their samples, shorter
// than the scrape interval (issue 33: --rate-interval 10s against a 15 s
// scrape was reported as "is server_metrics enabled?"). nil when the
// series do not exist either.
func (s *Source) windowTooShort(ctx context.Context) error {
	metric := s.sel("llm_prober_server_requests_finished_total")
	v, err := s.query(ctx, "max(count_over_time("+metric+"["+model.Duration(s.cfg.Window).String()+"]))")
	if err != nil || len(v) == 0 || v[0].Value < 2 {
		return err
	}
	scrape := ""
	if h, err := s.query(ctx, "max(count_over_time("+metric+"[1h]))"); err == nil && len(h) > 0 && h[0].Value >= 2 {
		scrape = fmt.Sprintf(" (they are scraped about every %s)", model.Duration(time.Hour/time.Duration(h[0].Value)).String())
	}
	return fmt.Errorf("%w: the llm_prober_server_requests_finished_total series matching %s exist, but no --rate-interval window of %s holds two of their samples%s: rate() needs two, so make --rate-interval at least 4 scrape intervals (1m for a 15s scrape)",
		ErrNoData, s.Selector(), model.Duration(s.cfg.RateInterval), scrape)
}
